import Foundation

// The tool's edits (`StoredSettingsEditor`, in `AppSettingsStoredSets`) go through the library's
// store, as a synchronization does: under the domain's lock the stored set is re-read, the edit is
// made on what is stored right then, checked against the set's own schema, archived by the codec
// (the record of synced settings kept) and written with its recovery copy; then the live objects
// of this process are told (those of other processes learn it from the store).

extension StoredSets {
    /// Thrown by an edit that changes nothing: nothing is written.
    private struct NothingToWrite: Error {}

    /// Under the domain's exclusive lock: reads what is stored under `key`, lets `change` edit its
    /// settings (given the stored schema version), and writes the result through the store. A set
    /// that cannot be read entirely is never rewritten; an edit that changes nothing writes nothing.
    package static func edit(
        userDefaults: UserDefaults,
        key: String,
        _ change: (inout [String: StoredValue], _ schemaVersion: Int?) throws -> Void
    ) throws(AppSettingsError) {
        try StoreNames.check(key: key)
        let store = SettingsStore(userDefaults: userDefaults, key: key)
        let written: Data
        do {
            (_, written) = try store.write { stored in
                let set = try readable(stored, key: key)
                var entries = set.values
                try change(&entries, set.schemaVersion.flatMap { Int(exactly: $0) })
                guard entries != set.values else { throw NothingToWrite() }
                // The set's own schema (stored by its app since AppSettings described settings)
                // checks every value the edit changed; a set stored before has none.
                let schema = set.schemaText.flatMap { StoredSchema(text: $0, names: Array(set.values.keys)) }
                if let schema { try check(entries, changedFrom: set.values, against: schema) }
                let (data, writeID) = SettingsCodec.archive(
                    set, replacingValuesWith: entries, schema: schema?.text(forNames: entries.keys.sorted()))
                // The store checks the size of the domain it goes into.
                var write = SettingsStore.Write(data: data, writeID: writeID, backup: nil, decision: data)
                // The keys the Settings app shows hold the values written, as an app's save leaves them.
                write.shownValues = SettingsBundlePage.shownValues(of: entries, schema: schema, key: key)
                return write
            }
        } catch is NothingToWrite {
            return
        } catch let error as AppSettingsError {
            throw error
        } catch {
            throw .storeFailed(key: key, reason: "\(error)")
        }
        // Live objects of this process (those of other processes learn it from the store).
        let others = StoreRegistry.liveObjects { object in
            object.userDefaultsKey == key && (object.userDefaults === userDefaults || object.store.holds(written))
        }
        for object in others { object.storedSettingsDidChange() }
    }

    /// The stored set, when every setting of it can be read: a set that cannot is never rewritten.
    private static func readable(_ stored: PreferencesValue?, key: String) throws -> SettingsCodec.StoredSet {
        switch stored {
        case nil:
            // Nothing stored: every name is unknown.
            return SettingsCodec.StoredSet()
        case .other(_, let typeName)?:
            throw AppSettingsError.notData(key: key, foundType: typeName)
        case .data(let bytes)?:
            let set: SettingsCodec.StoredSet
            do {
                set = try SettingsCodec.readStoredSet(bytes, readingSchema: true)
            } catch {
                throw AppSettingsError.unreadableArchive(key: key, settings: [], reason: error.description)
            }
            guard set.unreadable.isEmpty else {
                throw AppSettingsError.unreadableSettings(
                    key: key,
                    settings: set.unreadable.map(\.name),
                    reasons: set.unreadable.map { "\($0.name): \($0.reason)" })
            }
            return set
        }
    }

    /// Refuses, naming the setting, the range or the choices, a changed value the set's schema
    /// does not allow (its JSON form checked: what `update(fromJSON:)` in the app would refuse).
    private static func check(
        _ entries: [String: StoredValue],
        changedFrom stored: [String: StoredValue],
        against schema: StoredSchema
    ) throws(AppSettingsError) {
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) where stored[name] != value {
            guard let property = schema.properties[name] else { continue }  // carried over, undeclared
            if let problem = property.problem(with: value.jsonForm, path: name) {
                throw .invalidJSONValue(setting: problem.path, expected: problem.expected, found: problem.found)
            }
        }
    }
}
