import Foundation

// A settings set as the library reads it, on top of the defensive reader: what a load, the
// inspector and the tool's edits all read. (The record of synced settings is read as a value tree,
// `ArchivedSyncRecord`: what it means is `Internal/Cloud`'s.)

extension KeyedArchiveReader {
    /// A settings archive read as the library loads it: its schema version and each setting's
    /// value, or why it could not be read.
    struct SettingsValues {
        var schemaVersion: Int64?
        var values: [String: StoredValue] = [:]
        /// The settings whose values could not be read (missing from `values`), and why.
        var unreadable: [(name: String, error: ArchiveFormatError)] = []
        /// The record of synced settings (`$cloudBase`, `$cloudPending`), when the set has one.
        var syncRecord: ArchivedSyncRecord?
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
        result.syncRecord = syncRecord(base: root.cloudBase, pending: root.cloudPending, in: &reader)
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

    /// Reads `$cloudBase` (`$cloudPending`, of the first format, is ignored); `nil` when the set has
    /// neither. A record that cannot be read is logged and read as none: the settings themselves
    /// load, and the next change notice takes the cloud's values as a new device does.
    private static func syncRecord(
        base: Field?, pending: Field?, in reader: inout KeyedArchiveReader
    ) -> ArchivedSyncRecord? {
        guard base != nil || pending != nil else { return nil }
        guard let base else { return ArchivedSyncRecord(tree: nil) }
        do {
            return ArchivedSyncRecord(tree: try reader.value(of: base, depth: 2))
        } catch {
            Log.error("the stored record of synced settings could not be read (\(error)); it is rebuilt")
            return nil
        }
    }
}
