import Foundation

/// A settings object can be a setting of another: `@Setting var audio = AudioSettings()`.
///
/// It is stored inside the parent's archive as a dictionary of its own settings (never under a
/// key of its own), a change inside it makes the parent unsaved, and the parent's
/// ``AppSettingsObject/synchronizeToUserDefaults()`` stores it. Loading fills the nested object
/// in place, so references to it stay valid.
extension AppSettingsObject: SettingValue {
    /// Stores the object's settings as a dictionary.
    public static func _storedValue(of value: AppSettingsObject) throws -> _StoredValue {
        .dictionary(try value.codec.encodedSettings(value.takeSnapshot()))
    }

    /// Creates a new object (developer defaults, nothing loaded from `UserDefaults`) filled with
    /// the stored settings. Used for settings objects inside collections; a nested `@Setting` is
    /// filled in place instead.
    public static func _value(from stored: _StoredValue) throws -> Self {
        guard case .dictionary(let entries) = stored else {
            throw _StoredValueMismatch(expected: Self.self, found: stored)
        }
        let object = Self(userDefaults: ScratchCopyDefaults.describingClass)
        object.resetToDeveloperDefaults()
        // The first value that does not fit makes the whole object one that does not fit.
        let unknown = try object.fill(fromStored: entries) { problem in
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "\(problem.setting) \(problem.reason)")
        }
        object._state.withLock { $0.stored.unknownValues = unknown }
        object.publish()
        return object
    }

    /// The same object: assigning another object, even one with equal values, replaces it.
    public static func _isSameSettingValue(_ lhs: AppSettingsObject, _ rhs: AppSettingsObject) -> Bool {
        lhs === rhs
    }
}
