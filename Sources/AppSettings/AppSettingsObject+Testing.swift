import Foundation

extension AppSettingsObject {
    /// Runs the whole load path on `data` as if it were stored under this object's key, into a
    /// fresh copy that is returned with the error a load would report. Nothing is read from or
    /// written to `UserDefaults`. For the fuzz target and tests.
    @_spi(Testing)
    public func _loadCopy(fromStoredBytes data: Data) -> (copy: AppSettingsObject, error: AppSettingsError?) {
        let scratch = makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.loadStoredState(from: .data(data), source: .userDefaults)
        return (scratch, error)
    }

    /// The bytes ``synchronizeToUserDefaults()`` would write now. For benchmarks and tests.
    @_spi(Testing)
    public func _archivedBytes() throws -> Data {
        try checkStorable()
        guard let snapshot = takeSnapshot(onlyIfUnsaved: false) else { return Data() }
        return try archive(snapshot)
    }
}
