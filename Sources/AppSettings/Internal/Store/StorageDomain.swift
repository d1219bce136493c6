import Foundation

/// The storage seam: what ``SettingsStore`` needs of every place a set is kept. Each domain
/// implements all of it; what only some domains have is a capability of its own, below, and a
/// domain conforms to the capabilities it has, nothing else. The store builds its domain
/// (``AppSettingsStore/makeDomain()``) and ``SettingsStore`` finds its capabilities once, when it
/// is made:
///
/// | Domain | File | Capabilities |
/// | --- | --- | --- |
/// | ``PreferencesDomain`` on Linux | `PreferencesDomain+Linux.swift` | ``AvailabilityReporting``, ``DomainFileWriting``, ``RecoveryCopying`` |
/// | ``PreferencesDomain`` on Apple platforms | `PreferencesDomain+Darwin.swift` | ``AvailabilityReporting`` |
/// | ``InMemoryDomain`` | `InMemoryDomain.swift` | none |
///
/// The store's logic (re-read under the lock, decide, back up, check the size, write, flush) is
/// written once, in ``SettingsStore``; `Tests/AppSettingsTests/Store/StoreCompatibilityTests.swift`
/// runs one suite over every implementation the build has.
protocol StorageDomain {
    /// Runs `body` as the only writer (`exclusive`) or as a reader of the domain.
    func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T
    /// Re-reads what other processes wrote.
    func refresh()
    /// What `key` holds.
    func value(forKey key: String) -> PreferencesValue?
    /// What the app or a per-key library stored under `key` (a legacy key), registered defaults
    /// left out.
    func storedObject(forKey key: String) -> Any?
    /// Every value the domain stores.
    func forEachStoredValue(_ body: (String, Any) -> Void)
    func setData(_ data: Data, forKey key: String)
    func setObject(_ object: Any, forKey key: String)
    func removeObject(forKey key: String)
    /// Makes what was set durable; `false` when it could not.
    func synchronize() -> Bool
    /// Why ``synchronize()`` returned `false`.
    var synchronizeFailure: String { get }
}

/// A domain that may hold a set it cannot read now (both ``PreferencesDomain``s): a domain
/// without it holds exactly what it reads.
protocol AvailabilityReporting: StorageDomain {
    /// Why the domain, which reads nothing under `key`, may hold it all the same (its file is
    /// there but cannot be read now), or `nil`: then nothing is stored. Throws when whether it
    /// holds the set cannot be told at all (Apple platforms): reported, and nothing is written.
    func unavailability(forKey key: String) throws -> String?
}

/// A domain kept in a file the library knows and writes itself (Linux's ``PreferencesDomain``):
/// a power loss or another program can leave that file damaged.
protocol DomainFileWriting: StorageDomain {
    /// The file that holds the domain.
    var domainFileURL: URL { get }
    /// Why the domain, which reads nothing under `key`, may have lost it: its file is damaged, or
    /// `nil`. Reported by a load; a save keeps the file's bytes before it replaces it.
    func damage(forKey key: String) -> String?
}

/// A domain that keeps a recovery copy of each set beside it (Linux's ``PreferencesDomain``),
/// used when the domain lost the key. Without one, ``SettingsStore`` writes the domain alone.
protocol RecoveryCopying: StorageDomain {
    /// The copy of `key`, or `nil` when there is none.
    func readRecoveryCopy(forKey key: String) throws -> Data?
    /// Runs `write` (which sets and flushes the domain) and writes the recovery copy of `data`;
    /// `previous` is what the domain held under `key` (`nil`: nothing), put back if the write fails.
    func writeFlushingRecoveryCopy(
        _ data: Data, forKey key: String, replacing previous: Any?, _ write: () throws -> Void) throws
    func removeRecoveryCopy(forKey key: String) throws
    /// The file that holds the recovery copy of `key`.
    func recoveryCopyURL(forKey key: String) -> URL
}
