import Foundation

/// The steps of the library that tests, the fuzz target and the benchmark's breakdowns call one
/// at a time (`TestingHooks(object: settings).archivedBytes()`): nothing on the library's own
/// path calls them.
package struct TestingHooks: ObjectPart {
    let object: AppSettingsObject

    package init(object: AppSettingsObject) {
        self.object = object
    }

    /// Runs the whole load path on `data` as if it were stored under this object's key, into a
    /// fresh copy that is returned with the error a load would report. Nothing is read from or
    /// written to `UserDefaults`. For the fuzz target and tests.
    package func loadCopy(fromStoredBytes data: Data) -> (copy: AppSettingsObject, error: AppSettingsError?) {
        let scratch = object.ledger.makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.ledger.loadStoredState(from: .data(data), source: .userDefaults)
        return (scratch, error)
    }

    /// The bytes ``synchronizeToUserDefaults()`` would write now. For benchmarks and tests.
    package func archivedBytes() throws -> Data {
        try object.ledger.checkStorable()
        let snapshot = object.ledger.takeSnapshot()
        return try codec.archive(snapshot)
    }

    /// The same bytes without the `$schema` field, as a version that did not describe settings
    /// wrote them: for the benchmark of what the schema costs.
    package func archivedBytesWithoutSchema() throws -> Data {
        try object.ledger.checkStorable()
        let snapshot = object.ledger.takeSnapshot()
        return codec.archive(
            try codec.encodedSettings(snapshot),
            schemaVersion: snapshot.stored.schemaVersionToWrite(classVersion: type(of: object).schemaVersion),
            records: snapshot.stored.records, includingSchema: false)
    }

    /// What the store holds under this object's key, read as a load reads it. For the
    /// benchmark's breakdown of a load.
    package func readStoredBytes() throws -> Data? {
        guard case .data(let data)? = try store.read(refresh: false)?.object else { return nil }
        return data
    }

    // The steps of a load, each the internal call `init(userDefaults:)` makes, for the benchmark's
    // breakdown (Benchmarks/Breakdown.swift). Nothing here is on the library's own path.

    /// A new object of this class as `init(userDefaults:)` has it before the load: slots attached,
    /// developer defaults, nothing read, not published (a scratch copy).
    package func newUnloadedObject() -> AppSettingsObject {
        object.ledger.makeScratchCopy(copyingValues: false)
    }

    /// The stored values in `data` as a load's codec reads them (the defensive reader, the
    /// migration), without applying them.
    package func decodedSettings(fromStoredBytes data: Data) -> [String: StoredValue] {
        codec.readStoredSettings(data).entries ?? [:]
    }

    /// Puts `entries` into this unpublished object as a load does (each setting's conversion and
    /// `validate:`, then `checkAfterDecode()`); returns how many values did not fit.
    package func applyAsLoaded(_ entries: [String: StoredValue]) -> Int {
        precondition(!isPublished, "only an object nobody else sees is filled as a load fills it")
        var problems = 0
        _ = object.ledger.fill(fromStored: entries) { _ in problems += 1 }
        return problems
    }

    /// Looks for overrides in this unpublished object as `init(userDefaults:)` does.
    package func applyOverridesAsAtInitialization() {
        precondition(!isPublished, "overrides are looked for at initialization, before publishing")
        object.overrides.applyOverridesAtInitialization()
    }

    /// Publishes this unpublished object as `init(userDefaults:)` does (the store registry, the
    /// store watcher); it is unregistered when released.
    package func publishAsAtInitialization() {
        precondition(!isPublished, "an object is published once")
        StoreRegistry.publish(object)
    }

    /// The snapshot a save takes first; returns how many values it holds. For the benchmark's
    /// breakdown of a save.
    package func snapshotValueCount() -> Int {
        object.ledger.takeSnapshot().values.count
    }

    /// Writes `data` under this object's key as a synchronization writes it (the re-read under
    /// the domain lock, UserDefaults, and on Linux the recovery copy), without merging. For the
    /// benchmark's breakdown of a save.
    package func writeStoredBytes(_ data: Data) throws {
        _ = try store.write { _ in SettingsStore.Write(data: data, writeID: 0, backup: nil, decision: ()) }
    }
}
