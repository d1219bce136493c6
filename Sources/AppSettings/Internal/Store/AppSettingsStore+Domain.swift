import Foundation

extension AppSettingsStore {
    /// The storage this store is, built from what it knows of itself: its kind and its name.
    func makeDomain() -> any StorageDomain {
        if let refusal, let name = suiteName { return RefusedDomain(suiteName: name, reason: refusal) }
        if let storage { return InMemoryDomain(storage: storage) }
        switch identity {
        case .standard: return PreferencesDomain(userDefaults, suiteName: nil, isAppGroup: false)
        case .suite(let name):
            // A suite this process declared an App Group elsewhere is the group's suite all the same.
            return PreferencesDomain(userDefaults, suiteName: name, isAppGroup: SuiteNames.isAppGroup(name))
        case .appGroup(let name): return PreferencesDomain(userDefaults, suiteName: name, isAppGroup: true)
        case .unnamed, .inMemory, .isolated: return PreferencesDomain(unnamed: userDefaults)
        }
    }
}

/// A suite the library cannot use (``AppSettingsStore/suite(_:)`` of a name `UserDefaults` refuses
/// or that breaks ``StoreNames``' rules): every read and write throws
/// ``AppSettingsError/invalidSuiteName(name:reason:)``, and nothing reaches any domain. Read
/// outside a lock (a legacy key, what the key holds now), it holds nothing; it has none of the
/// capabilities of ``StorageDomain``.
struct RefusedDomain: StorageDomain {
    let suiteName: String
    let reason: String

    func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T {
        throw AppSettingsError.invalidSuiteName(name: suiteName, reason: reason)
    }

    func refresh() {}
    func value(forKey key: String) -> PreferencesValue? { nil }
    func storedObject(forKey key: String) -> Any? { nil }
    func forEachStoredValue(_ body: (String, Any) -> Void) {}
    func setData(_ data: Data, forKey key: String) {}
    func setObject(_ object: Any, forKey key: String) {}
    func removeObject(forKey key: String) {}
    func synchronize() -> Bool { false }
    var synchronizeFailure: String { "the suite \(suiteName) cannot be used: \(reason)" }
}
