import Foundation

// Value semantics of a settings object: `isEqual`, `hash` and `description` go by setting values.

extension SettingsForms {
    func settingsAreEqual(to candidate: Any?) -> Bool {
        guard let other = candidate as? AppSettingsObject, type(of: other) == type(of: object) else { return false }
        if other === object { return true }
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

    var settingsHash: Int {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(type(of: object)))
        // A value that cannot be encoded leaves the hash to the class: equal objects still hash alike.
        if let settings = try? codec.encodedSettings(ledger.takeSnapshot()) {
            let declared = Set(ledger.storedSettingNames)
            hasher.combine(settings.filter { name, _ in declared.contains(name) })
        }
        return hasher.finalize()
    }

    var settingsDescription: String {
        let values = _state.withLock { _ in slots.map { ($0.name, $0.isConstant, $0.valueDescription) } }
        let list = values.map { name, isConstant, value in "\(name)\(isConstant ? " (const)" : "") = \(value)" }
        return "<\(type(of: object)) \(userDefaultsKey): \(list.joined(separator: ", "))>"
    }
}
