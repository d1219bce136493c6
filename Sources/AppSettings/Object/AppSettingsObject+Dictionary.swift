import Foundation
import Observation

extension AppSettingsObject {
    /// The stored names of all settings, in declaration order, superclass settings first.
    /// `const` settings are not listed.
    public final var settingNames: [String] {
        ledger.storedSettingNames
    }

    /// The settings as property-list values, by stored name.
    ///
    /// URLs and UUIDs become strings, sets become arrays, nested settings objects become nested
    /// dictionaries, `Codable` values their property-list form; a `nil` optional is left out.
    /// `const` settings are not exported. ``update(from:)`` reads this form back.
    public final func dictionaryRepresentation() -> [String: Any] {
        let snapshot = ledger.takeSnapshot()
        return forms.dictionary(from: snapshot)
    }

    /// Sets the settings named in `dictionary` to its values, all or nothing.
    ///
    /// Values are read as ``dictionaryRepresentation()`` writes them (numbers may be any
    /// `NSNumber` or Swift number that fits, URLs and UUIDs may be strings) and pass through each
    /// setting's `validate`; then ``checkAfterDecode()`` runs. Settings missing from `dictionary`
    /// keep their values. Observers get one notification.
    ///
    /// - Throws: ``AppSettingsError/unknownSetting(key:setting:)`` for a name that is no setting
    ///   of this class (a `const` setting included; in a nested object, its dotted path), as
    ///   ``update(fromJSON:replacingAll:)`` refuses it;
    ///   ``AppSettingsError/invalidDictionaryValue(setting:expected:found:)`` for the first value
    ///   of the wrong type. Then nothing has changed.
    public final func update(from dictionary: [String: Any]) throws {
        try ledger.replaceValues(copyingValues: true, as: .change) { try $0.forms.assignStrictly(dictionary) }
    }
}

extension SettingsForms {
    func dictionary(from snapshot: Snapshot) -> [String: Any] {
        var result: [String: Any] = [:]
        for slot in slots where !slot.isConstant {
            if let nested = snapshot.nested[slot.index], let nestedObject = slot.nestedObject {
                result[slot.name] = nestedObject.forms.dictionary(from: nested)
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

    /// Converts `dictionary` to stored values and walks the settings with them, throwing at the
    /// first value that does not fit, named with the type it has in `dictionary`.
    func assignStrictly(_ dictionary: [String: Any]) throws {
        try checkNames(in: dictionary, key: userDefaultsKey, path: "")
        var entries: [String: StoredValue] = [:]
        for (name, value) in dictionary {
            guard let stored = StoredValue(propertyListValue: value) else {
                // Not a property-list value at all: no setting can take it.
                guard let slot = slots.first(where: { !$0.isConstant && $0.name == name }) else { continue }
                throw AppSettingsError.invalidDictionaryValue(
                    setting: name,
                    expected: slot.nestedObject == nil ? slot.valueTypeName : "dictionary",
                    found: foundTypeName(of: value)
                )
            }
            entries[name] = stored
        }
        _ = try ledger.fill(fromStored: entries) { problem in
            throw AppSettingsError.invalidDictionaryValue(
                setting: problem.setting,
                expected: problem.expected,
                found: Self.value(atPath: problem.setting, in: dictionary).map(foundTypeName(of:)) ?? "nothing"
            )
        }
    }

    /// Throws naming the first name, in sorted order, that is no setting (nested objects by their
    /// dotted path).
    private func checkNames(in dictionary: [String: Any], key: String, path: String) throws {
        var slotsByName: [String: AnySettingSlot] = [:]
        for slot in slots where !slot.isConstant { slotsByName[slot.name] = slot }
        for name in dictionary.keys.sorted() {
            guard let slot = slotsByName[name] else {
                throw AppSettingsError.unknownSetting(key: key, setting: path + name)
            }
            if let nested = slot.nestedObject, let values = dictionary[name] as? [String: Any] {
                try nested.forms.checkNames(in: values, key: key, path: path + name + ".")
            }
        }
    }

    /// The value at a dotted setting path (`audio.volume`) of a dictionary of nested dictionaries.
    private static func value(atPath path: String, in dictionary: [String: Any]) -> Any? {
        var current: Any = dictionary
        for component in path.split(separator: ".") {
            guard let value = (current as? [String: Any])?[String(component)] else { return nil }
            current = value
        }
        return current
    }
}
