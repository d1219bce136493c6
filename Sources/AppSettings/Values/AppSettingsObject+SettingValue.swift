import Foundation

/// A settings object can be a setting of another: `@Setting var audio = AudioSettings()`.
///
/// It is stored inside the parent's archive as a dictionary of its own settings (never under a
/// key of its own), a change inside it makes the parent unsaved, and the parent's
/// ``AppSettingsObject/synchronizeToUserDefaults()`` stores it. Loading fills the nested object
/// in place, so references to it stay valid.
extension AppSettingsObject: SettingValue {}

extension SettingValue where Self: AppSettingsObject {
    /// A dictionary of the object's settings, by stored name (each subclass its own).
    public static var settingRepresentation: SettingRepresentation {
        SettingRepresentation(SettingsObjectWitness<Self>())
    }
}

final class SettingsObjectWitness<Object: AppSettingsObject>: SettingWitness<Object>, @unchecked Sendable {
    /// The object's settings as a dictionary.
    override func storedValue(of value: Object) throws -> StoredValue {
        .dictionary(try SettingsCodec(object: value).encodedSettings(value.ledger.takeSnapshot()))
    }

    /// A new object (developer defaults, nothing loaded from `UserDefaults`) filled with the
    /// stored settings. Used for settings objects inside collections; a nested `@Setting` is
    /// filled in place instead.
    override func value(from stored: StoredValue) throws -> Object {
        guard case .dictionary(let entries) = stored else {
            throw StoredValueMismatch(expected: Object.self, found: stored)
        }
        let object = Object(userDefaults: ScratchCopyDefaults.describingClass)
        object.resetToDeveloperDefaults()
        // The first value that does not fit makes the whole object one that does not fit.
        let unknown = try object.ledger.fill(fromStored: entries) { problem in
            throw StoredValueMismatch(expected: Object.self, foundDescription: "\(problem.setting) \(problem.reason)")
        }
        object.ledger.recordUnknownValues(unknown)
        StoreRegistry.publish(object)
        return object
    }

    /// The same object: assigning another object, even one with equal values, replaces it.
    override func isSame(_ lhs: Object, _ rhs: Object) -> Bool {
        lhs === rhs
    }

    /// An object of the settings' forms, by stored name (in an array or a dictionary of settings
    /// objects; a nested `@Setting` is read in place by ``AppSettingsObject/update(fromJSON:replacingAll:)``).
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        guard case .dictionary(let entries) = value else { return value }
        let object = ScratchCopyDefaults.describing(Object.self)
        do {
            return .dictionary(try object.forms.storedEntries(fromJSONForm: entries, key: object.userDefaultsKey))
        } catch {
            throw StoredValueMismatch(expected: Object.self, foundDescription: "\(error)")
        }
    }

    /// An object of the class's settings.
    override var schemaNode: SchemaNode {
        let object = ScratchCopyDefaults.describing(Object.self)
        return .object(object.forms.schemaProperties())
    }
}
