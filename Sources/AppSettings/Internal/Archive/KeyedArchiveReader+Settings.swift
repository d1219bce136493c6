import Foundation

extension KeyedArchiveReader {
    /// A settings archive read as the library loads it: its schema version and each setting's
    /// value, or why it could not be read.
    struct SettingsValues {
        var schemaVersion: Int64?
        var values: [String: StoredValue] = [:]
        /// The settings whose values could not be read (missing from `values`), and why.
        var unreadable: [(name: String, error: ArchiveFormatError)] = []
        /// The replicas' records the set carries, by field.
        var records = ReplicaRecords()
        /// The `$schema` text, when the set carries one (see `StoredSchema`); read only on request.
        var schemaText: String?
    }

    /// Reads a settings set of a format this version can read; every setting that can be read
    /// is, whatever the others hold. What a load, the inspector and the tool's edits all read.
    static func settingsValues(of data: Data, readingSchema: Bool = false) throws(ArchiveFormatError) -> SettingsValues
    {
        var reader = try KeyedArchiveReader(data)
        let root = try reader.readableRoot()
        var result = SettingsValues(schemaVersion: root.schemaVersion)
        result.records = records(root, in: &reader)
        if readingSchema, let field = root.schema, case .string(let text) = try? reader.value(of: field, depth: 1) {
            // A `$schema` that cannot be read is as good as none: the tool checks what it can.
            result.schemaText = text
        }
        result.values.reserveCapacity(root.settings.count)
        for (name, field) in root.settings {
            do {
                result.values[name] = try reader.value(of: field, depth: 2)
            } catch {
                result.unreadable.append((name, error))
            }
        }
        return result
    }

    /// Reads each replica's record. One that cannot be read is logged and read as none: the
    /// settings themselves load, and its replica rebuilds it (the cloud's next change notice takes
    /// the cloud's values as a new device does). The first format's `$cloudPending` alone reads
    /// as an empty record of synced settings (its settings count as never written here).
    private static func records(_ root: ArchiveRoot, in reader: inout KeyedArchiveReader) -> ReplicaRecords {
        var records = ReplicaRecords()
        if root.cloudPending != nil && root.records[ArchiveFormat.cloudBaseField] == nil {
            records[ArchiveFormat.cloudBaseField] = .dictionary([:])
        }
        for (name, field) in root.records {
            do {
                records[name] = try reader.value(of: field, depth: 2)
            } catch {
                Log.error("the stored record \(name) could not be read (\(error)); it is rebuilt")
            }
        }
        return records
    }
}
