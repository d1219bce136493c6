import Foundation
import Observation

extension AppSettingsObject: NSSecureCoding {
    /// Settings objects support secure coding.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the settings (by stored name, as Foundation objects) so that a settings object can
    /// be part of another archive. `UserDefaults` storage does not use this: see
    /// ``synchronizeToUserDefaults()``.
    public func encode(with coder: NSCoder) {
        guard let snapshot = takeSnapshot(onlyIfUnsaved: false) else { return }
        do {
            let settings = try storedSettings(snapshot)
            coder.encode(_StoredValue.dictionary(settings).foundationObject, forKey: Self.codingSettingsKey)
        } catch {
            // `encode(with:)` cannot throw, and `failWithError` traps in corelibs' archivers: the
            // archive holds no settings (it decodes to developer defaults) and the error is logged.
            Log.error("\(type(of: self)): encoding for another archive failed: \(error)")
        }
    }

    static let codingSettingsKey = "settings"

    static let codingClasses: [AnyClass] = [
        NSDictionary.self, NSArray.self, NSSet.self, NSString.self, NSNumber.self, NSData.self, NSDate.self,
        NSURL.self, NSUUID.self, NSNull.self,
    ]
}

extension AppSettingsObject: NSCopying {
    /// An independent settings object of the same class, bound to the same `UserDefaults`, with
    /// the same values and the same unsaved state.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = makeScratchCopy(copyingValues: true)
        let unsaved = hasUnsavedChanges
        copy._state.withLock { state in
            state.savedGeneration = unsaved ? state.generation &- 1 : state.generation
        }
        copy.publish()
        return copy
    }
}

extension AppSettingsObject {
    /// Makes a finished scratch object a live one: visible to the store registry.
    final func publish() {
        isUnpublished = false
        StoreRegistry.register(self)
    }

    final func settingsAreEqual(to object: Any?) -> Bool {
        guard let other = object as? AppSettingsObject, type(of: other) == type(of: self) else { return false }
        if other === self { return true }
        let otherValues = other._state.withLock { _ in other.slots.map(\.anyValue) }
        let scalarsEqual = _state.withLock { _ in
            zip(slots, otherValues).allSatisfy { slot, value in
                slot.isConstant || slot.nestedObject != nil || slot.hasSameValue(as: value)
            }
        }
        guard scalarsEqual else { return false }
        return zip(slots, other.slots).allSatisfy { slot, otherSlot in
            guard !slot.isConstant, let nested = slot.nestedObject else { return true }
            return nested.isEqual(otherSlot.nestedObject)
        }
    }

    final var settingsHash: Int {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(type(of: self)))
        // A value that cannot be encoded leaves the hash to the class: equal objects still hash alike.
        if let snapshot = takeSnapshot(onlyIfUnsaved: false), let settings = try? storedSettings(snapshot) {
            let declared = Set(storedSettingNames)
            hasher.combine(settings.filter { name, _ in declared.contains(name) })
        }
        return hasher.finalize()
    }

    final var settingsDescription: String {
        let values = _state.withLock { _ in slots.map { ($0.name, $0.isConstant, $0.valueDescription) } }
        let list = values.map { name, isConstant, value in "\(name)\(isConstant ? " (const)" : "") = \(value)" }
        return "<\(type(of: self)) \(userDefaultsKey): \(list.joined(separator: ", "))>"
    }
}
