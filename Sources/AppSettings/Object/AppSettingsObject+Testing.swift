import Foundation

extension AppSettingsObject {
    /// Runs the whole load path on `data` as if it were stored under this object's key, into a
    /// fresh copy that is returned with the error a load would report. Nothing is read from or
    /// written to `UserDefaults`. For the fuzz target and tests.
    package func _loadCopy(fromStoredBytes data: Data) -> (copy: AppSettingsObject, error: AppSettingsError?) {
        let scratch = makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.loadStoredState(from: .data(data), source: .userDefaults)
        return (scratch, error)
    }

    /// The bytes ``synchronizeToUserDefaults()`` would write now. For benchmarks and tests.
    package func _archivedBytes() throws -> Data {
        try checkStorable()
        let snapshot = takeSnapshot()
        return try codec.archive(snapshot)
    }

    /// The same bytes without the `$schema` field, as a version that did not describe settings
    /// wrote them: for the benchmark of what the schema costs.
    package func _archivedBytesWithoutSchema() throws -> Data {
        try checkStorable()
        let snapshot = takeSnapshot()
        return codec.archive(
            try codec.encodedSettings(snapshot),
            schemaVersion: snapshot.stored.schemaVersionToWrite(classVersion: type(of: self).schemaVersion),
            cloud: snapshot.cloud.record, includingSchema: false)
    }

    /// What the store holds under this object's key, read as a load reads it. For the
    /// benchmark's breakdown of a load.
    package func _readStoredBytes() throws -> Data? {
        guard case .data(let data)? = try store.read(refresh: false)?.object else { return nil }
        return data
    }

    /// Reads `data` with the defensive archive reader into value trees, without applying them;
    /// returns how many settings it held. For the benchmark's breakdown of a load.
    package static func _decodeStoredBytes(_ data: Data) throws -> Int {
        try SettingsCodec.readSettingCount(data)
    }

    /// Writes `data` under this object's key as a synchronization writes it (the re-read under
    /// the domain lock, UserDefaults, and on Linux the recovery copy), without merging. For the
    /// benchmark's breakdown of a save.
    package func _writeStoredBytes(_ data: Data) throws {
        _ = try store.write { _ in SettingsStore.Write(data: data, writeID: 0, backup: nil, decision: ()) }
    }
}
