import Foundation

#if os(Linux)
    import CoreFoundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What was found under a settings key.
enum StoredObject: @unchecked Sendable {
    /// Bytes, as a settings set is stored.
    case data(Data)
    /// Something else, written by other code; its dynamic type for messages. Never overwritten
    /// without a backup.
    case other(Any, typeName: String)
}

/// Where the bytes came from.
enum StoredSource {
    case userDefaults
    /// The atomically written copy, used when the `UserDefaults` domain lost the key.
    case recoveryCopy
}

/// Reads and writes one settings key of one `UserDefaults`: the data path below the settings
/// object.
///
/// On Linux, swift-corelibs-foundation rewrites a domain's file in place and does not
/// coordinate processes, so the store adds what Apple's preferences daemon does by itself:
/// - an exclusive `flock` per domain around every write (and a shared one around reads), so
///   processes writing different keys of one domain never drop each other's keys;
/// - a copy of each written blob in a file of its own, written to a temporary file, flushed
///   with `fdatasync` and renamed over the old copy, so a process killed mid-write cannot damage
///   it. It is written on another thread while CoreFoundation rewrites the domain.
///   When the domain comes back without the key (a damaged domain file loads as an empty
///   domain), the copy is used.
struct SettingsStore: @unchecked Sendable {
    let userDefaults: UserDefaults
    let key: String
    #if os(Linux)
        /// The suite's name, or `nil` for the application's own domain (`.standard`).
        let suiteName: String?
        /// The domain's name as corelibs names its file: the suite name, or for `.standard` the
        /// bundle identifier or else the process name.
        let domainName: String
        /// `~/.config/AppSettings/<domain>/`: recovery copies and the domain's lock file.
        let storeDirectory: URL
        /// The key as a file name: the recovery copy is `<it>.archive` in ``storeDirectory``.
        let keyFileName: String
        /// The recovery copy of this key's blob.
        let recoveryCopyURL: URL
    #endif

    init(userDefaults: UserDefaults, key: String) {
        self.userDefaults = userDefaults
        self.key = key
        #if os(Linux)
            // corelibs' `UserDefaults` keeps its suite name in a private property.
            let suite = Mirror(reflecting: userDefaults).children.first { $0.label == "suite" }?.value
            suiteName = (suite as? String?) ?? nil
            domainName = suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
            storeDirectory = Self.configurationDirectory.appendingPathComponent("AppSettings", isDirectory: true)
                .appendingPathComponent(Self.fileNameComponent(domainName), isDirectory: true)
            keyFileName = Self.fileNameComponent(key)
            recoveryCopyURL = storeDirectory.appendingPathComponent(keyFileName + ".archive")
        #endif
    }

    /// The store of an object still initializing.
    static let placeholder = SettingsStore(userDefaults: .standard, key: "")

    /// Identifies the store among all the process's settings objects.
    var identity: String {
        #if os(Linux)
            domainName + "\u{0}" + key
        #else
            "\(ObjectIdentifier(userDefaults))\u{0}\(key)"
        #endif
    }

    /// The largest value Apple's preferences accept for one key.
    static let maximumByteCount = 4 * 1024 * 1024

    /// The key an unreadable stored value is moved to before it is replaced.
    func backupKey(date: Date = Date()) -> String {
        let stamp = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return "\(key).unreadable-\(stamp)"
    }

    /// Reads what is stored, re-reading the domain from disk first when `refresh` is set.
    func read(refresh: Bool) throws -> (object: StoredObject, source: StoredSource)? {
        try withDomainLock(exclusive: false) {
            if refresh { userDefaults.synchronize() }
            if let object = readUserDefaultsValue() { return (object, .userDefaults) }
            #if os(Linux)
                let url = recoveryCopyURL
                if FileManager.default.fileExists(atPath: url.path) {
                    do {
                        return (.data(try Data(contentsOf: url)), .recoveryCopy)
                    } catch {
                        throw AppSettingsError.storeFailed(key: key, reason: "could not read \(url.path): \(error)")
                    }
                }
            #endif
            return nil
        }
    }

    private func readUserDefaultsValue() -> StoredObject? {
        #if os(Linux)
            // `object(forKey:)` bridges stored data to `Data` byte by byte (about 65 ns a byte on
            // corelibs); CoreFoundation hands out the stored object, whose bytes are copied at once.
            // Stored data comes back as an `NSData` instance (CoreFoundation objects are Foundation's).
            if let value = CFPreferencesCopyAppValue(Self.cfString(key), preferencesApplication),
                let data = value as? NSData
            {
                return .data(Data(bytes: data.bytes, count: data.length))
            }
        #endif
        guard let value = userDefaults.object(forKey: key) else { return nil }
        if let data = value as? Data { return .data(data) }
        return .other(value, typeName: String(describing: type(of: value)))
    }

    /// Writes `data` under the key and flushes it to disk. When `backup` is given (what a load
    /// could not use), it is first kept under ``backupKey(date:)``; that key is returned.
    @discardableResult
    func write(_ data: Data, backingUp backup: StoredObject?) throws -> String? {
        try withDomainLock(exclusive: true) {
            var backupKey: String?
            if let backup {
                let newKey = self.backupKey()
                switch backup {
                case .data(let bytes): setUserDefaultsData(bytes, forKey: newKey)
                case .other(let value, _): userDefaults.set(value, forKey: newKey)
                }
                backupKey = newKey
            }
            #if os(Linux)
                // The copy is written and flushed on another thread while CoreFoundation rewrites
                // the domain: the two take about as long, and a save returns when both are done.
                let copy = RecoveryCopyWrite(store: self, data: data)
            #endif
            setUserDefaultsData(data, forKey: key)
            let synchronized = userDefaults.synchronize()
            #if os(Linux)
                try copy.wait()
            #endif
            guard synchronized else {
                throw AppSettingsError.storeFailed(key: key, reason: "UserDefaults could not write its file")
            }
            return backupKey
        }
    }

    /// Sets `data` under `key` in memory; ``write(_:backingUp:)`` flushes it.
    private func setUserDefaultsData(_ data: Data, forKey key: String) {
        #if os(Linux)
            // `set(_:forKey:)` first checks the value is a property list by bridging it from
            // `NSData` back to `Data` byte by byte (about 60 ns a byte): for a settings blob that
            // costs more than the archiving. The value is `Data`, so the check is skipped and the
            // bytes go to CoreFoundation as `set` would pass them, in one `NSData`, copied at once.
            let object = data.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
            CFPreferencesSetAppValue(Self.cfString(key), object, preferencesApplication)
        #else
            userDefaults.set(data, forKey: key)
        #endif
    }

    /// Removes the key (and its recovery copy) and flushes.
    func remove() throws {
        try withDomainLock(exclusive: true) {
            #if os(Linux)
                let url = recoveryCopyURL
                if FileManager.default.fileExists(atPath: url.path) {
                    do {
                        try FileManager.default.removeItem(at: url)
                    } catch {
                        throw AppSettingsError.storeFailed(key: key, reason: "could not remove \(url.path): \(error)")
                    }
                }
            #endif
            userDefaults.removeObject(forKey: key)
            guard userDefaults.synchronize() else {
                throw AppSettingsError.storeFailed(key: key, reason: "UserDefaults could not write its file")
            }
        }
    }

    // MARK: Linux: lock and recovery copy

    #if os(Linux)
        /// The CoreFoundation application name `UserDefaults` uses for this domain.
        private var preferencesApplication: CFString {
            suiteName.map(Self.cfString) ?? kCFPreferencesCurrentApplication
        }

        /// A string as CoreFoundation takes it (corelibs' `NSString` is its `CFString`).
        private static func cfString(_ string: String) -> CFString {
            unsafeBitCast(NSString(string: string), to: CFString.self)
        }

        /// `$XDG_CONFIG_HOME` when absolute, else `~/.config`: where corelibs keeps domains.
        static var configurationDirectory: URL {
            if let xdg = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
                return URL(fileURLWithPath: xdg, isDirectory: true)
            }
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config", isDirectory: true)
        }

        static func fileNameComponent(_ name: String) -> String {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.@"))
            let cleaned = String(name.unicodeScalars.map { allowed.contains($0) ? Character($0) : "_" })
            return cleaned.isEmpty || cleaned.hasPrefix(".") ? "_" + cleaned : cleaned
        }

        fileprivate func writeRecoveryCopy(_ data: Data) throws(AppSettingsError) {
            let target = recoveryCopyURL
            let temporary = storeDirectory.appendingPathComponent(".\(keyFileName).\(getpid()).tmp")
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw storeError("could not create \(temporary.path)") }
            var written = 0
            let complete = data.withUnsafeBytes { buffer -> Bool in
                while written < buffer.count {
                    let result = systemWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
                    if result < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    written += result
                }
                return true
            }
            let synced = fdatasync(descriptor) == 0
            close(descriptor)
            guard complete, synced, rename(temporary.path, target.path) == 0 else {
                unlink(temporary.path)
                throw storeError("could not write \(target.path)")
            }
        }

        private func storeError(_ what: String) -> AppSettingsError {
            .storeFailed(key: key, reason: "\(what): \(String(cString: strerror(errno)))")
        }

        /// Runs `body` holding the domain's lock file; exclusive for writers, shared for readers.
        private func withDomainLock<T>(exclusive: Bool, _ body: () throws -> T) throws -> T {
            let directory = storeDirectory
            let lockPath = directory.appendingPathComponent("domain.lock").path
            var descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            if descriptor < 0, errno == ENOENT {
                // No writer has used this domain yet: a reader has nothing to wait for.
                guard exclusive else { return try body() }
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw AppSettingsError.storeFailed(key: key, reason: "could not create \(directory.path): \(error)")
                }
                descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            }
            guard descriptor >= 0 else { throw storeError("could not open \(lockPath)") }
            defer { close(descriptor) }
            while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
                guard errno == EINTR else { break }
            }
            return try body()
        }
    #else
        // Apple's preferences daemon writes atomically and coordinates processes by itself.
        private func withDomainLock<T>(exclusive: Bool, _ body: () throws -> T) rethrows -> T {
            try body()
        }
    #endif
}

#if os(Linux)
    /// `write(2)`, named apart from the store's own `write`.
    private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        write(descriptor, buffer, count)
    }
#endif

#if os(Linux)
    /// Writes a store's recovery copy on another thread, started at once.
    private final class RecoveryCopyWrite: Sendable {
        /// A queue of its own: unlike the global queues, it gets a thread even when every worker
        /// thread is busy, for instance in saves waiting for their copies.
        private static let queue = DispatchQueue(label: "AppSettings.recovery-copy", attributes: .concurrent)
        private let done = DispatchSemaphore(value: 0)
        private let error = Protected<AppSettingsError?>(nil)

        init(store: SettingsStore, data: Data) {
            Self.queue.async { [self] in
                do throws(AppSettingsError) {
                    try store.writeRecoveryCopy(data)
                } catch {
                    self.error.withLock { $0 = error }
                }
                done.signal()
            }
        }

        /// Waits until the copy is written; throws what writing it threw.
        func wait() throws(AppSettingsError) {
            done.wait()
            if let error = error.withLock({ $0 }) { throw error }
        }
    }
#endif
