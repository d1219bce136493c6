import Foundation

extension StoredSets {
    /// Thrown by an edit that changes nothing: nothing is written.
    private struct NothingToWrite: Error {}

    /// What an edit knows of the stored set besides its values: its schema version and, when it
    /// carries one, its schema (`StoredSchema`).
    package struct EditContext {
        /// The schema version the set was stored with.
        package let schemaVersion: Int?
        let schema: StoredSchema?
        let key: String

        /// Whether the set's schema says the node at `path` (a setting, then names into nested
        /// objects and dictionaries) takes `nil`; `false` without a schema.
        package func isOptional(_ path: [String]) -> Bool {
            guard case .optional? = property(at: path)?.node else { return false }
            return true
        }

        /// Throws what `update(fromJSON:)` in the app throws for `value` (as JSON gives it) at
        /// `path`, in the same words, when the set's schema refuses it; nothing without a schema.
        /// `merging`: an object's members may be missing (what is stored fills them; the merged
        /// value is checked whole before it is written).
        package func check(_ value: StoredValue, at path: [String], merging: Bool) throws(AppSettingsError) {
            guard var property = property(at: path) else { return }
            if merging { property.node = property.node.takingSomeMembers }
            guard let problem = property.problem(with: value, path: path.joined(separator: ".")) else { return }
            throw problem.error(key: key)
        }

        /// The schema's property at `path`; `nil` without a schema or where it describes none.
        private func property(at path: [String]) -> SchemaProperty? {
            guard let first = path.first, var property = schema?.properties[first] else { return nil }
            for component in path.dropFirst() {
                switch property.node.unwrapped.node {
                case .object(let properties):
                    guard let nested = properties.first(where: { $0.name == component }) else { return nil }
                    property = nested
                case .dictionary(let element): property = SchemaProperty(name: component, node: element)
                case .members(let members):
                    guard let member = members.first(where: { $0.name == component }) else { return nil }
                    property = SchemaProperty(name: component, node: member.node)
                default: return nil
                }
            }
            return property
        }
    }

    /// Under the domain's exclusive lock: reads what is stored under `key`, lets `change` edit its
    /// settings (told what the set's schema says: `EditContext`), checks every changed value
    /// against the schema, and writes the result through the store. A set that cannot be read
    /// entirely is never rewritten; an edit that changes nothing writes nothing.
    package static func edit(
        userDefaults: UserDefaults,
        key: String,
        _ change: (inout [String: StoredValue], EditContext) throws -> Void
    ) throws(AppSettingsError) {
        try StoreNames.check(key: key)
        let store = SettingsStore(userDefaults: userDefaults, key: key)
        let written: Data
        do {
            (_, written) = try store.write { domain in
                let set = try readable(domain.stored, key: key)
                var entries = set.values
                // The set's own schema (stored by its app since AppSettings described settings)
                // says which settings are optional and which are shown in the Settings app, and
                // checks every value the edit changed; a set stored before has none.
                let schema = set.storedSchema
                let shown = ShownKeys(schema: schema, key: key)
                let found = domain.objects(forKeys: shown.keys.map(\.key))
                // What the Settings app changed since its keys were written is taken first, as the
                // app takes it: an edit seen now, under the edit that follows.
                let judged = shown.judge(
                    found, record: set.records[ArchiveFormat.shownBaseField], setValues: set.values)
                for (shownKey, state) in judged {
                    guard case .edited(_, .success(let value)) = state,
                        schema?.properties[shownKey.name]?.problem(with: value.jsonForm, path: shownKey.name) == nil
                    else { continue }
                    entries[shownKey.name] = value
                }
                try change(
                    &entries,
                    EditContext(schemaVersion: set.schemaVersion.flatMap { Int(exactly: $0) }, schema: schema, key: key)
                )
                guard entries != set.values else { throw NothingToWrite() }
                if let schema { try check(entries, changedFrom: set.values, against: schema, key: key) }
                var records = set.records
                // A synced value it changes is versioned as a save without a store versions it (one
                // above the record), so that the syncing app sends it; one without a version stays so,
                // but one that holds another account's value becomes the record's account's.
                if var cloud = CloudRecord.decoded(from: records) {
                    let versioned =
                        cloud.stamps.map { ($0.key, $0.value as CloudStamp?) }
                        + cloud.foreign.subtracting(cloud.stamps.keys).map { ($0, nil) }
                    for (name, stamp) in versioned where entries[name] != set.values[name] {
                        let value = entries[name]?.cloudValue
                        cloud.stampChange(of: name, as: CloudStamp.after([stamp], value: value), over: stamp)
                    }
                    Optional(cloud).record(in: &records)
                }
                // The keys the Settings app shows hold the values written, as an app's save leaves them.
                let (shownValues, record) = shown.written(entries, over: set.records[ArchiveFormat.shownBaseField])
                if !shown.keys.isEmpty { records[ArchiveFormat.shownBaseField] = record }
                let (data, writeID) = SettingsCodec.archive(
                    set, replacingValuesWith: entries, records: records,
                    schema: schema?.text(forNames: entries.keys.sorted(), values: entries),
                    generation: domain.generation)
                // The store checks the size of the domain it goes into.
                var write = SettingsStore.Write(data: data, writeID: writeID, backup: nil, decision: data)
                write.entries = shownValues
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
            object.userDefaultsKey == key
                && (object.userDefaults === userDefaults || object.binding.store.holds(written))
        }
        for object in others { object.ledger.storedSettingsDidChange() }
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
        against schema: StoredSchema,
        key: String
    ) throws(AppSettingsError) {
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) where stored[name] != value {
            guard let property = schema.properties[name] else { continue }  // carried over, undeclared
            if let problem = property.problem(with: value.jsonForm, path: name) { throw problem.error(key: key) }
        }
    }
}

extension StoredSets {
    /// Takes the set under `key` away, under the domain's exclusive lock, keeping its bytes as the
    /// app keeps an unreadable set's: under a backup key (`<key>.unreadable-<ms>`), written before
    /// the key, its recovery copy and the keys the Settings app shows (as its record and schema
    /// name them) are removed. Works whether or not the set can be read (an
    /// unreadable set is what it is for). Returns the backup key.
    ///
    /// - Throws: ``AppSettingsError/readFailed(key:reason:)`` when nothing is stored under `key`
    ///   (nor in its recovery copy); ``AppSettingsError/storeFailed(key:reason:)``
    ///   when the domain cannot be written.
    package static func remove(userDefaults: UserDefaults, key: String) throws(AppSettingsError) -> String {
        try StoreNames.check(key: key)
        let backupKey: String
        do {
            // The Settings app's keys go with the set, as an app's removal takes them.
            backupKey = try SettingsStore(userDefaults: userDefaults, key: key).removeKeepingBackup { removed in
                guard case .data(let bytes) = removed,
                    let set = try? SettingsCodec.readStoredSet(bytes, readingSchema: true)
                else { return [] }
                return ShownKeys.keys(of: set, key: key)
            }
        } catch let error as AppSettingsError {
            throw error
        } catch {
            throw .storeFailed(key: key, reason: "\(error)")
        }
        let others = StoreRegistry.liveObjects { $0.userDefaultsKey == key && $0.userDefaults === userDefaults }
        for object in others { object.ledger.storedSettingsDidChange() }
        return backupKey
    }
}
