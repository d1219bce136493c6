import Foundation

/// The storage seam: what ``SettingsStore`` needs of the place a set is kept. One protocol, three
/// implementations, each in a file of its own:
/// - ``PreferencesDomain`` on Linux (`PreferencesDomain+Linux.swift`: CoreFoundation's domain
///   file, a lock file and a recovery copy per key);
/// - ``PreferencesDomain`` on Apple platforms (`PreferencesDomain+Darwin.swift`: the preferences
///   daemon, a lock per key, an App Group's lock file);
/// - ``InMemoryDomain`` (`InMemoryDomain.swift`: a dictionary in this process, for
///   `AppSettingsStore.inMemory(_:)` and `.isolatedAppSettings`).
///
/// The store's logic (re-read under the lock, decide, back up, check the size, write, flush) is
/// written once, in ``SettingsStore``, over these calls; one compatibility suite
/// (`Tests/AppSettingsTests/Store/StoreCompatibilityTests.swift`) runs over every implementation the
/// build has.
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

    /// Why the domain, which reads nothing under `key`, may hold it all the same (its file is
    /// there but cannot be read now), or `nil`: then nothing is stored. Throws when whether it
    /// holds the set cannot be told at all (Apple platforms): reported, and nothing is written.
    func unavailability(forKey key: String) throws -> String?
    /// Why the domain, which reads nothing under `key`, may have lost it: its file is damaged
    /// (Linux), or `nil`. Reported by a load; a save keeps the file's bytes before it replaces it.
    func damage(forKey key: String) -> String?

    /// The copy used when the domain lost `key` (Linux), or `nil`.
    func readRecoveryCopy(forKey key: String) throws -> Data?
    /// Runs `write` (which sets and flushes the domain) and writes the recovery copy of `data`;
    /// `previous` is what the domain held under `key` (`nil`: nothing), put back if the write fails.
    func writeFlushingRecoveryCopy(
        _ data: Data, forKey key: String, replacing previous: Any?, _ write: () throws -> Void) throws
    func removeRecoveryCopy(forKey key: String) throws

    /// The file that holds the domain, where the library can know it.
    var domainFileURL: URL? { get }
    /// The file that holds the recovery copy of `key`, where there is one.
    func recoveryCopyURL(forKey key: String) -> URL?
}

extension StorageDomain {
    func damage(forKey key: String) -> String? { nil }
}

extension PreferencesDomain: StorageDomain {}
