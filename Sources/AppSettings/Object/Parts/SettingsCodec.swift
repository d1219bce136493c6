import Foundation

/// The stored form of one settings object, both ways, migration included: for a load, a save,
/// and every other way values leave or enter an object. (The size check is `SettingsStore`'s.)
package struct SettingsCodec {
    let object: AppSettingsObject

    // MARK: Values to bytes

    /// A snapshot encoded as value trees by stored name: the declared settings plus the
    /// carried-over unknown ones. What the archive writer and `hash` take.
    /// Without `includingUnknown`, only the declared settings (a JSON document of this class).
    func encodedSettings(_ snapshot: Snapshot, includingUnknown: Bool = true) throws -> [String: StoredValue] {
        var settings = includingUnknown ? snapshot.stored.unknownValues : [:]
        for slot in object.slots where !slot.isConstant {
            if let nested = snapshot.nested[slot.index] {
                settings[slot.name] = .dictionary(
                    try slot.nestedObject.map {
                        try SettingsCodec(object: $0).encodedSettings(nested, includingUnknown: includingUnknown)
                    } ?? [:])
            } else if let value = snapshot.values[slot.index] {
                do {
                    settings[slot.name] = try slot.storedValue(of: value)
                } catch {
                    throw AppSettingsError.encodingFailed(
                        key: object.userDefaultsKey, setting: slot.name, reason: "\(error)")
                }
            }
        }
        return settings
    }

    func archive(_ snapshot: Snapshot) throws -> Data {
        archive(
            try encodedSettings(snapshot),
            schemaVersion: snapshot.stored.schemaVersionToWrite(classVersion: type(of: object).schemaVersion),
            records: snapshot.stored.records)
    }

    /// The archive of settings encoded by ``encodedSettings(_:)``, with a new random `writeID`
    /// unless one is given, and the `generation` of a save (the store's, see
    /// ``SettingsStore/LockedRead/generation``; none for an archive that is not saved); without
    /// `includingSchema`, no `$schema` (as versions before it wrote).
    func archive(
        _ settings: [String: StoredValue],
        schemaVersion: Int,
        writeID: Int64 = .random(in: 1...Int64.max),
        generation: Int64? = nil,
        records: ReplicaRecords = [:],
        includingSchema: Bool = true
    ) -> Data {
        KeyedArchiveWriter.archive(
            schemaVersion: Int64(schemaVersion), writeID: writeID, generation: generation, settings: settings,
            records: records,
            schema: includingSchema
                ? StoredSchema.text(of: object, settings: settings, schemaVersion: schemaVersion) : nil)
    }

    // MARK: Bytes to values

    /// A stored archive's settings as value trees by stored name, migrated to this class's
    /// schema version: the load path up to `fill(fromStored:)`, shared by a load and a merge.
    struct StoredSettings {
        /// `nil` when the archive cannot be read at all.
        var entries: [String: StoredValue]?
        /// The schema version of `entries` (this class's after a migration).
        var schemaVersion: Int?
        /// Settings whose stored values could not be read; they are missing from `entries`.
        var problems = LoadProblems()
        /// Why the archive, or its migration, failed (`entries` then holds the unmigrated values).
        var error: AppSettingsError?
        /// The records of the set's replicas (carried unread).
        var records = ReplicaRecords()
    }

    func readStoredSettings(_ data: Data) -> StoredSettings {
        let key = object.userDefaultsKey
        var result = StoredSettings()
        var entries: [String: StoredValue] = [:]
        do {
            let set = try Self.readStoredSet(data)
            result.schemaVersion = set.schemaVersion.flatMap { Int(exactly: $0) }
            entries = set.values
            result.records = set.records
            for (name, reason) in set.unreadable {
                result.problems.append(setting: name, reason: reason)
            }
        } catch {
            result.error = .unreadableArchive(key: key, settings: object.ledger.storedSettingNames, reason: "\(error)")
            return result
        }
        let storedVersion = result.schemaVersion ?? 0
        let currentVersion = type(of: object).schemaVersion
        if storedVersion < currentVersion {
            do {
                entries = try migrated(entries, from: storedVersion)
                result.schemaVersion = currentVersion
            } catch let error as AppSettingsError {
                result.error = error
            } catch {
                result.error = .migrationFailed(key: key, fromSchemaVersion: storedVersion, reason: "\(error)")
            }
        }
        result.entries = entries
        return result
    }

    /// `entries` after the class's `migrate(_:fromSchemaVersion:)`, back in stored form; an entry
    /// the migration left as it was keeps its form (a number as written, which the migration saw
    /// as an `Int` or a `Double`).
    func migrated(_ entries: [String: StoredValue], from version: Int) throws -> [String: StoredValue] {
        var values = entries.mapValues { $0.migrationValue }
        try object.migrate(&values, fromSchemaVersion: version)
        var result: [String: StoredValue] = [:]
        for (name, value) in values {
            if let entry = entries[name],
                StoredValue(propertyListValue: value)
                    == StoredValue(
                        propertyListValue: entry.migrationValue)
            {
                result[name] = entry
                continue
            }
            guard let stored = StoredValue(propertyListValue: value) else {
                throw AppSettingsError.migrationFailed(
                    key: object.userDefaultsKey,
                    fromSchemaVersion: version,
                    reason:
                        "migrate(_:fromSchemaVersion:) left '\(name)' with a value that is not a property-list value"
                )
            }
            result[name] = stored
        }
        return result
    }
}
