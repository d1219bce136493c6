import Foundation

/// The keys the Settings app shows, as a replica: each key is judged against the base it was
/// written with, the set's record (`$shownBase`: per shown setting, the stored value its key was
/// last written with), else, for a set stored before it kept one, the set's own value. Another
/// writer's save writes the keys and the record together, so it is never taken for an edit; a
/// writer that does not show a setting carries its record entry, so the key it left is stale, not
/// edited. Shared by the object (its looks and its reconciliations) and the tool's edits.
struct ShownKeys {
    /// One shown setting: its stored name, its key and its control.
    struct Key {
        let name: String
        let key: String
        let control: SettingsAppControl
    }

    /// What one key holds, judged against its base.
    enum State {
        /// As written with the set: `current` is `false` when the next write must write it (it is
        /// missing, or the set's value moved on without it, or the set keeps no record of it).
        case unchanged(current: Bool)
        /// Changed since it was written (in the Settings app, or by a plain write): the value as
        /// found, and its stored form or why it has none.
        case edited(asFound: StoredValue, stored: Result<StoredValue, SettingsAppValueProblem>)
    }

    let keys: [Key]

    /// Judges what the domain holds under each key (`found`, by key) against `record` (the set's
    /// `$shownBase`) and the set's values (`nil`: no readable set is stored).
    func judge(_ found: [String: Any], record: StoredValue?, setValues: [String: StoredValue]?) -> [(Key, State)] {
        let recorded: [String: StoredValue]
        if case .dictionary(let entries)? = record { recorded = entries } else { recorded = [:] }
        return keys.map { key in
            let written = recorded[key.name]
            guard let object = found[key.key] else { return (key, .unchanged(current: setValues == nil)) }
            let stored = Result(catching: { () throws(SettingsAppValueProblem) -> StoredValue in
                try key.control.storedValue(fromSettingsApp: object)
            })
            if case .success(let value) = stored, value == written ?? setValues?[key.name] {
                return (
                    key, .unchanged(current: setValues == nil || (written != nil && written == setValues?[key.name]))
                )
            }
            let asFound = StoredValue(propertyListValue: object) ?? .string(String(describing: object))
            return (key, .edited(asFound: asFound, stored: stored))
        }
    }

    /// What a write of `settings` (stored values by name) puts under each key, and the record it
    /// keeps of them over `stored` (the entries of settings this writer does not show are carried:
    /// their keys still hold what another writer wrote).
    func written(_ settings: [String: StoredValue], over stored: StoredValue?) -> (
        entries: [String: Any], record: StoredValue
    ) {
        var record: [String: StoredValue] = [:]
        if case .dictionary(let entries)? = stored { record = entries }
        var entries: [String: Any] = [:]
        for key in keys {
            guard let value = settings[key.name], let shown = key.control.settingsAppValue(of: value.jsonForm) else {
                continue
            }
            entries[key.key] = shown
            record[key.name] = value
        }
        return (entries, .dictionary(record))
    }

    /// Whether every key of `entries` holds its value in `found` (as the domain gave it back).
    static func hold(_ entries: [String: Any], in found: [String: Any]) -> Bool {
        entries.allSatisfy { key, value in
            found[key].flatMap(StoredValue.init(propertyListValue:)) == StoredValue(propertyListValue: value)
        }
    }
}
