import Foundation

// The codec's entry points that need no settings class (a load before typing, the inspector, the
// tool's edits, the store watcher). With `SettingsCodec.swift` the only callers of the archive
// reader and writer.

extension SettingsCodec {
    /// A stored settings set as the archive holds it, typed by the kind of each value.
    package struct StoredSet {
        /// The schema version the set was stored with; `nil` for an archive without one.
        package var schemaVersion: Int64?
        /// Each readable setting's value, by stored name.
        package var values: [String: StoredValue] = [:]
        /// The settings whose values could not be read (missing from `values`), and why.
        package var unreadable: [(name: String, reason: String)] = []
        /// The `$schema` text, when the set carries one (see `StoredSchema`); read only on request.
        package var schemaText: String?
        /// The records of the set's replicas, kept as they are by a write back.
        var records = ReplicaRecords()

        package init() {}
    }

    /// Reads a stored set of a format this version can read, without a class: every setting that
    /// can be read is, whatever the others hold. What a load, the inspector and the tool's edits
    /// all read.
    ///
    /// - Parameter readingSchema: Also read `$schema` (a load never does).
    /// - Throws: Why the bytes are not a settings set this version reads (the text names it).
    package static func readStoredSet(_ data: Data, readingSchema: Bool = false) throws(ArchiveFormatError) -> StoredSet
    {
        let values = try KeyedArchiveReader.settingsValues(of: data, readingSchema: readingSchema)
        var set = StoredSet()
        set.schemaVersion = values.schemaVersion
        set.values = values.values
        set.unreadable = values.unreadable.map { ($0.name, $0.error.description) }
        set.schemaText = values.schemaText
        set.records = values.records
        return set
    }

    /// The archive of `set` with `values` in place of its own: its schema version kept, `records`
    /// as its replicas' records (by default its own), `schema` as its `$schema`, `generation` (the
    /// store's, see ``SettingsStore/LockedRead/generation``), and a new random write ID, returned with it.
    package static func archive(
        _ set: StoredSet,
        replacingValuesWith values: [String: StoredValue],
        records: ReplicaRecords? = nil,
        schema: String?,
        generation: Int64
    ) -> (data: Data, writeID: Int64) {
        let writeID = Int64.random(in: 1...Int64.max)
        let data = KeyedArchiveWriter.archive(
            schemaVersion: set.schemaVersion ?? 0, writeID: writeID, generation: generation, settings: values,
            records: records ?? set.records, schema: schema)
        return (data, writeID)
    }

    /// The `$writeID` of stored bytes, read without their settings; `nil` when they are not an
    /// archive of this library or carry none (format 1).
    static func writeID(of data: Data) -> Int64? {
        try? root(of: data).writeID
    }

    /// The `$generation` of stored bytes, read without their settings; `nil` when they carry none
    /// (saved before generations, or not by a save).
    /// - Throws: When they are not an archive of this library.
    static func generation(of data: Data) throws(ArchiveFormatError) -> Int64? {
        try root(of: data).generation
    }

    private static func root(of data: Data) throws(ArchiveFormatError) -> KeyedArchiveReader.ArchiveRoot {
        var reader = try KeyedArchiveReader(data)
        return try reader.root()
    }
}
