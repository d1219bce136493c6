// Apple platforms (and any Foundation other than Linux's corelibs): the preferences daemon
// writes atomically and coordinates processes by itself, so the domain is `UserDefaults` as it
// is: no lock file, no recovery copy.
#if !os(Linux)
    import Foundation

    /// One `UserDefaults` domain as the store uses it on Apple platforms.
    struct PreferencesDomain {
        let userDefaults: UserDefaults

        init(_ userDefaults: UserDefaults) {
            self.userDefaults = userDefaults
        }

        /// The preferences daemon owns the domain's file; its place is not the library's to say.
        var domainFileURL: URL? { nil }
        func recoveryCopyURL(forKey key: String) -> URL? { nil }

        static func removeSuite(named name: String) throws {
            UserDefaults.standard.removePersistentDomain(forName: name)
        }

        func value(forKey key: String) -> PreferencesValue? {
            guard let value = userDefaults.object(forKey: key) else { return nil }
            if let data = value as? Data { return .data(data) }
            return .other(value, typeName: foundTypeName(of: value))
        }

        /// What the app or a per-key library stored under `key`, leaving out a value equal to the
        /// one `register(defaults:)` registered (the registration domain is a volatile domain).
        func storedObject(forKey key: String) -> Any? {
            guard let value = userDefaults.object(forKey: key) else { return nil }
            let registered = userDefaults.volatileDomain(forName: UserDefaults.registrationDomain)[key]
            if let registered, (registered as AnyObject).isEqual(value) { return nil }
            return value
        }

        func setData(_ data: Data, forKey key: String) { userDefaults.set(data, forKey: key) }
        func setObject(_ object: Any, forKey key: String) { userDefaults.set(object, forKey: key) }
        func removeObject(forKey key: String) { userDefaults.removeObject(forKey: key) }
        func synchronize() -> Bool { userDefaults.synchronize() }
        func refresh() { userDefaults.synchronize() }

        func readRecoveryCopy(forKey key: String) throws -> Data? { nil }
        func writeFlushingRecoveryCopy(_ data: Data, forKey key: String, _ write: () throws -> Void) throws {
            try write()
        }
        func removeRecoveryCopy(forKey key: String) throws {}

        func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T {
            try body()
        }
    }
#endif
