import Foundation

/// The values of one in-memory store, shared by every object and every ``InMemoryUserDefaults``
/// of that store in this process. Nothing of it reaches the disk.
final class InMemoryStorage: @unchecked Sendable {
    /// The store's name, for messages.
    let name: String
    /// The suite this store stands for where a suite's name matters (Linux managed
    /// configuration): its name for a named store, `nil` (the app's own) for a test's store,
    /// which stands for `UserDefaults.standard`.
    let suiteName: String?
    /// The values by key, as a `UserDefaults` domain holds them (property-list objects). `Any` is
    /// not `Sendable`; every value put here is an immutable property-list object or a value type.
    private let values = Protected<[String: Any]>([:])
    /// Held by a writer from its re-read to its write, as a domain's lock is.
    private let writer = Protected(0)

    init(name: String, suiteName: String?) {
        self.name = name
        self.suiteName = suiteName
    }

    func value(forKey key: String) -> Any? { values.withLock { $0[key] } }
    func set(_ value: Any?, forKey key: String) { values.withLock { $0[key] = value } }
    var all: [String: Any] { values.withLock { $0 } }
    func removeAll() { values.withLock { $0 = [:] } }

    func whileWriting<T>(_ body: () throws -> T) rethrows -> T {
        try writer.withLock { _ in try body() }
    }

    // MARK: Named stores

    private static let registry = Protected<[String: InMemoryStorage]>([:])

    /// Forgets the store named `name` (its objects keep the values they hold).
    static func remove(named name: String) {
        let removed = registry.withLock { $0.removeValue(forKey: name) }
        withExtendedLifetime(removed) {}
    }

    /// The store named `name`: made at its first use, kept as long as the process runs.
    static func named(_ name: String) -> InMemoryStorage {
        registry.withLock { stores in
            if let store = stores[name] { return store }
            let store = InMemoryStorage(name: name, suiteName: name)
            stores[name] = store
            return store
        }
    }
}

/// A settings store in memory: ``StorageDomain`` over an ``InMemoryStorage``. Writers hold the
/// store's lock from re-read to write, and every object of the store sees a write at once; no
/// file, no recovery copy, no other process, and none of the optional capabilities.
struct InMemoryDomain: StorageDomain {
    let storage: InMemoryStorage

    func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T {
        // Reads are whole without a lock: each value is read in one step.
        guard exclusive else { return try body() }
        return try storage.whileWriting(body)
    }

    func refresh() {}

    func value(forKey key: String) -> PreferencesValue? {
        guard let value = storage.value(forKey: key) else { return nil }
        if let data = value as? Data { return .data(data) }
        return .other(value, typeName: foundTypeName(of: value))
    }

    func storedObject(forKey key: String) -> Any? { storage.value(forKey: key) }

    func forEachStoredValue(_ body: (String, Any) -> Void) {
        for (key, value) in storage.all { body(key, value) }
    }

    func setData(_ data: Data, forKey key: String) { storage.set(data, forKey: key) }
    func setObject(_ object: Any, forKey key: String) { storage.set(object, forKey: key) }
    func removeObject(forKey key: String) { storage.set(nil, forKey: key) }
    func synchronize() -> Bool { true }
    var synchronizeFailure: String { "the in-memory store \(storage.name) could not be written" }
}

/// The `UserDefaults` of an in-memory store: what ``AppSettingsObject/userDefaults`` is for an
/// object whose store is ``AppSettingsStore/inMemory(_:)``. It reads and writes the store's
/// values (so code that writes a legacy key through it, or reads what the set stored, sees the
/// store), and never the disk: `synchronize()` only answers `true`.
final class InMemoryUserDefaults: UserDefaults {
    let storage: InMemoryStorage
    private let registered = Protected<[String: Any]>([:])

    init(storage: InMemoryStorage) {
        self.storage = storage
        // A suite name is needed to make a `UserDefaults`; nothing is ever read from or written
        // to that suite: every primitive is overridden below.
        super.init(suiteName: "AppSettings.InMemory")!
        // So that `AppSettingsStore.userDefaults(_:)` knows it for the store it is.
        let identity: AppSettingsStore.Identity =
            storage.suiteName.map { .inMemory($0) } ?? .isolated(ObjectIdentifier(storage))
        SuiteNames.record(AppSettingsStore(identity: identity, userDefaults: self, storage: storage))
    }

    override func object(forKey defaultName: String) -> Any? {
        storage.value(forKey: defaultName) ?? registered.withLock { $0[defaultName] }
    }

    override func set(_ value: Any?, forKey defaultName: String) { storage.set(value, forKey: defaultName) }
    override func set(_ value: Int, forKey defaultName: String) { storage.set(value, forKey: defaultName) }
    override func set(_ value: Float, forKey defaultName: String) { storage.set(value, forKey: defaultName) }
    override func set(_ value: Double, forKey defaultName: String) { storage.set(value, forKey: defaultName) }
    override func set(_ value: Bool, forKey defaultName: String) { storage.set(value, forKey: defaultName) }
    override func set(_ url: URL?, forKey defaultName: String) { storage.set(url, forKey: defaultName) }
    override func removeObject(forKey defaultName: String) { storage.set(nil, forKey: defaultName) }

    override func register(defaults registrationDictionary: [String: Any]) {
        registered.withLock { $0.merge(registrationDictionary) { _, new in new } }
    }

    override func dictionaryRepresentation() -> [String: Any] {
        registered.withLock { $0 }.merging(storage.all) { _, stored in stored }
    }

    override func persistentDomain(forName domainName: String) -> [String: Any]? { storage.all }

    override func synchronize() -> Bool { true }
}
