import Foundation
import Observation

extension AppSettingsObject {
    /// The stored names of all settings, in declaration order, superclass settings first.
    /// `const` settings are not listed.
    public final var settingNames: [String] {
        storedSettingNames
    }

    /// The settings as property-list values, by stored name.
    ///
    /// URLs and UUIDs become strings, sets become arrays, nested settings objects become nested
    /// dictionaries, `Codable` values their property-list form; a `nil` optional is left out.
    /// `const` settings are not exported. ``update(from:)`` reads this form back.
    public final func dictionaryRepresentation() -> [String: Any] {
        guard let snapshot = takeSnapshot(onlyIfUnsaved: false) else { return [:] }
        return dictionary(from: snapshot)
    }

    private func dictionary(from snapshot: Snapshot) -> [String: Any] {
        var result: [String: Any] = [:]
        for slot in slots where !slot.isConstant {
            if let nested = snapshot.nested[slot.index], let nestedObject = slot.nestedObject {
                result[slot.name] = nestedObject.dictionary(from: nested)
            } else if let value = snapshot.values[slot.index],
                let stored = try? slot.storedValue(of: value),
                let propertyList = stored.propertyListValue
            {
                // A value that cannot be encoded has no dictionary form; synchronizing reports it.
                result[slot.name] = propertyList
            }
        }
        return result
    }

    /// Sets the settings named in `dictionary` to its values, all or nothing.
    ///
    /// Values are read as ``dictionaryRepresentation()`` writes them (numbers may be any
    /// `NSNumber` or Swift number that fits, URLs and UUIDs may be strings) and pass through each
    /// setting's `validate`; then ``checkAfterDecode()`` runs. Settings missing from `dictionary`
    /// keep their values; keys that name no setting are ignored. Observers get one notification.
    ///
    /// - Throws: ``AppSettingsError/invalidDictionaryValue(setting:expected:found:)`` for the
    ///   first value of the wrong type; then nothing has changed.
    public final func update(from dictionary: [String: Any]) throws {
        let scratch = makeScratchCopy(copyingValues: true)
        try scratch.assignStrictly(dictionary, path: "")
        adopt(scratch, markingSaved: false, takingLoadState: false)
    }

    private func assignStrictly(_ dictionary: [String: Any], path: String) throws {
        for slot in slots where !slot.isConstant {
            guard let value = dictionary[slot.name] else { continue }
            if let nested = slot.nestedObject {
                guard let nestedDictionary = value as? [String: Any] else {
                    throw AppSettingsError.invalidDictionaryValue(
                        setting: path + slot.name,
                        expected: "dictionary",
                        found: foundTypeName(of: value)
                    )
                }
                try nested.assignStrictly(nestedDictionary, path: path + slot.name + ".")
                continue
            }
            do {
                guard let stored = _StoredValue(propertyListValue: value) else {
                    throw _StoredValueMismatch(expected: Any.self, foundDescription: "")
                }
                let decoded = try slot.decode(stored)
                _ = _state.withLock { _ in slot.assign(decoded) }
            } catch {
                throw AppSettingsError.invalidDictionaryValue(
                    setting: path + slot.name,
                    expected: slot.valueTypeName,
                    found: foundTypeName(of: value)
                )
            }
        }
        checkAfterDecode()
    }
}
