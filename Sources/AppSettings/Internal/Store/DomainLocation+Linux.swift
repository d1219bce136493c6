#if os(Linux) && !APPLE_STAND_INS
    import CoreFoundation
    import Foundation
    import Glibc

    /// Where a domain's files are, computed once per domain and process.
    /// Immutable but for the key file names, which are behind their lock (CFString is not `Sendable`).
    final class DomainLocation: @unchecked Sendable {
        /// The suite's name, or `nil` for the application's own domain (`.standard`).
        let suiteName: String?
        /// The domain's name as corelibs names its file: the suite name, or for `.standard` the
        /// bundle identifier or else the process name.
        let domainName: String
        /// The CoreFoundation application name `UserDefaults` uses for this domain.
        let applicationName: CFString
        // Paths, not URLs: a process's first `URL` costs its first settings object about 80 µs.
        /// `<configuration directory>/<domain>.plist`: the file corelibs keeps the domain in.
        let domainFilePath: String
        /// `<configuration directory>/AppSettings/<domain>`: recovery copies and the lock file.
        let storeDirectoryPath: String
        let lockFilePath: String
        /// `<configuration directory>/AppSettings`.
        let parentOfStoreDirectoryPath: String
        /// Set when the suite of a `UserDefaults` could not be told: every read and write throws it.
        let unknownSuiteReason: String?
        /// Set when the suite's name breaks ``StoreNames``' rules: every read and write throws
        /// ``AppSettingsError/invalidSuiteName(name:reason:)``.
        let invalidSuiteNameReason: String?
        private let keyFileNames = Protected<[String: String]>([:])
        /// Whether this process flushed the directories above ``storeDirectory`` (see
        /// ``flushStoreDirectory(key:)``).
        private let ancestorsFlushed = Protected(false)

        private init(suiteName: String?, unknownSuiteReason: String? = nil) {
            self.suiteName = suiteName
            self.unknownSuiteReason = unknownSuiteReason
            invalidSuiteNameReason = suiteName.flatMap(StoreNames.problem(with:))
            domainName = suiteName ?? mainBundleIdentifier() ?? ProcessInfo.processInfo.processName
            applicationName = suiteName.map(cfString) ?? kCFPreferencesCurrentApplication
            let configuration = ConfigurationDirectory.path
            domainFilePath = appendingPathComponent(domainName + ".plist", to: configuration)
            parentOfStoreDirectoryPath = appendingPathComponent("AppSettings", to: configuration)
            storeDirectoryPath = appendingPathComponent(fileNameComponent(domainName), to: parentOfStoreDirectoryPath)
            lockFilePath = appendingPathComponent("domain.lock", to: storeDirectoryPath)
        }

        var domainFileURL: URL { URL(fileURLWithPath: domainFilePath, isDirectory: false) }
        var storeDirectory: URL { URL(fileURLWithPath: storeDirectoryPath, isDirectory: true) }

        /// The location of `userDefaults`' domain, made once per domain.
        static func of(_ userDefaults: UserDefaults) -> DomainLocation {
            // Most objects of a process share a few `UserDefaults`: the reflection below runs once
            // for each, not for every settings object.
            let identity = ObjectIdentifier(userDefaults)
            if let known = byObject.withLock({ $0[identity] }), known.userDefaults === userDefaults {
                return known.location
            }
            let location = locate(userDefaults)
            byObject.withLock { entries in
                entries = entries.filter { $0.value.userDefaults != nil }
                entries[identity] = KnownUserDefaults(userDefaults: userDefaults, location: location)
            }
            return location
        }

        /// A `UserDefaults` whose location is known; weak, so that a new object at the same address
        /// is never taken for it.
        private struct KnownUserDefaults {
            weak var userDefaults: UserDefaults?
            let location: DomainLocation
        }

        private static let byObject = Protected<[ObjectIdentifier: KnownUserDefaults]>([:])

        private static func locate(_ userDefaults: UserDefaults) -> DomainLocation {
            let suiteName: String?
            if userDefaults === UserDefaults.standard {
                suiteName = nil
            } else {
                // corelibs keeps a suite's name in a private property, `suite: String?`. If it is
                // gone or has another type, the domain cannot be told: reads and writes then throw,
                // rather than go to the application's own domain.
                // A subclass's own properties come first: the suite is its `UserDefaults` ancestor's.
                let child = sequence(first: Mirror(reflecting: userDefaults), next: \.superclassMirror)
                    .lazy.compactMap { $0.children.first { $0.label == "suite" } }.first
                guard let child, let suite = child.value as? String? else {
                    return DomainLocation(
                        suiteName: nil,
                        unknownSuiteReason: "this version of Foundation does not say which suite a UserDefaults "
                            + "is for; AppSettings cannot find its domain on Linux"
                    )
                }
                suiteName = suite
            }
            return of(suiteNamed: suiteName)
        }

        /// The location of a suite's domain, or of the application's own for `nil`.
        static func of(suiteNamed suiteName: String?) -> DomainLocation {
            cache.withLock { cache in
                let name = suiteName ?? ""
                if let location = cache[name] { return location }
                let location = DomainLocation(suiteName: suiteName)
                cache[name] = location
                return location
            }
        }

        private static let cache = Protected<[String: DomainLocation]>([:])

        /// Whether the library reads and writes this domain: its suite is known and its name valid.
        var isUsable: Bool { unknownSuiteReason == nil && invalidSuiteNameReason == nil }

        /// Throws unless reads and writes of `key` may go ahead here: the suite is known, its name
        /// and the key follow ``StoreNames``' rules, and the library's directories are its own (not
        /// a link, not another user's).
        func checkKnown(key: String, writing: Bool) throws(AppSettingsError) {
            if let suiteName, let invalidSuiteNameReason {
                throw .invalidSuiteName(name: suiteName, reason: invalidSuiteNameReason)
            }
            try StoreNames.check(key: key)
            for directory in [storeDirectoryPath, parentOfStoreDirectoryPath] {
                if let refusal = GuardedFile.refusalOfDirectory(at: directory) {
                    throw writing ? .storeFailed(key: key, reason: refusal) : .readFailed(key: key, reason: refusal)
                }
            }
            guard let unknownSuiteReason else { return }
            throw writing
                ? .storeFailed(key: key, reason: unknownSuiteReason) : .readFailed(key: key, reason: unknownSuiteReason)
        }

        /// `<store directory>/<key as a file name>.archive`.
        func recoveryCopyPath(forKey key: String) -> String {
            appendingPathComponent(keyFileName(key) + ".archive", to: storeDirectoryPath)
        }

        func recoveryCopyURL(forKey key: String) -> URL {
            URL(fileURLWithPath: recoveryCopyPath(forKey: key), isDirectory: false)
        }

        func keyFileName(_ key: String) -> String {
            keyFileNames.withLock { names in
                if let name = names[key] { return name }
                let name = fileNameComponent(key)
                names[key] = name
                return name
            }
        }

        /// Flushes ``storeDirectory``, so that a recovery copy renamed into it persists through a
        /// power loss (a rename persists only once its directory is flushed). The first time in a
        /// process, also the directories above it up to the configuration directory's parent: the
        /// library or corelibs may have just created them, and a directory persists only once its
        /// parent is flushed.
        func flushStoreDirectory(key: String) throws(AppSettingsError) {
            try Self.flushDirectory(storeDirectoryPath, key: key)
            guard !ancestorsFlushed.withLock({ $0 }) else { return }
            let configuration = ConfigurationDirectory.url
            for directory in [storeDirectory.deletingLastPathComponent(), configuration] {
                try Self.flushDirectory(directory.path, key: key)
            }
            // The configuration directory's parent (the home directory, or the one above
            // `XDG_CONFIG_HOME`) may give this user search permission only; it cannot be flushed
            // then, and the configuration directory in it almost always existed long before.
            try Self.flushDirectory(configuration.deletingLastPathComponent().path, key: key, unreadableIsFine: true)
            ancestorsFlushed.withLock { $0 = true }
        }

        /// Flushes the configuration directory, so that a domain file renamed into it persists
        /// through a power loss.
        func flushConfigurationDirectory() throws(AppSettingsError) {
            try Self.flushDirectory(ConfigurationDirectory.path, key: suiteName ?? domainName)
        }

        private static func flushDirectory(
            _ path: String,
            key: String,
            unreadableIsFine: Bool = false
        ) throws(AppSettingsError) {
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor < 0, unreadableIsFine, errno == EACCES { return }
            guard descriptor >= 0 else { throw systemError(key: key, "could not open \(path) to flush it") }
            defer { close(descriptor) }
            // EINVAL: a file system that cannot flush directories; nothing more can be done there.
            guard fsync(descriptor) == 0 || errno == EINVAL else {
                throw systemError(key: key, "could not flush \(path)")
            }
        }
    }

    /// The directory corelibs keeps preference domains in, found as corelibs finds it.
    enum ConfigurationDirectory {
        /// `$XDG_CONFIG_HOME` when absolute, else `$HOME/.config`, as corelibs' preferences find it
        /// (Foundation's `homeDirectoryForCurrentUser` ignores `HOME`, which sandboxes and CI set).
        static let path: String = unsafeBitCast(_CFXDGCreateConfigHomePath(), to: NSString.self) as String
        static var url: URL { URL(fileURLWithPath: path, isDirectory: true) }
    }

    /// `Bundle.main.bundleIdentifier`, from CoreFoundation's main bundle (which `Bundle.main`
    /// wraps) without making the `Bundle`: about 80 µs at a process's first settings object.
    private func mainBundleIdentifier() -> String? {
        guard let bundle = CFBundleGetMainBundle(), let identifier = CFBundleGetIdentifier(bundle) else { return nil }
        return unsafeBitCast(identifier, to: NSString.self) as String
    }

    /// A CoreFoundation string, not a Swift-backed `NSString`, which CoreFoundation would read
    /// through Swift's bridge for every character at every lookup.
    func cfString(_ string: String) -> CFString {
        var string = string
        let native: CFString? = string.withUTF8 { bytes in
            CFStringCreateWithBytes(nil, bytes.baseAddress, bytes.count, CFStringBuiltInEncodings.UTF8.rawValue, false)
        }
        // `nil` only for bytes that are not UTF-8, which a `String`'s never are.
        return native ?? unsafeBitCast(NSString(string: string), to: CFString.self)
    }

    func systemError(key: String, _ what: String) -> AppSettingsError {
        .storeFailed(key: key, reason: "\(what): \(String(cString: strerror(errno)))")
    }
#endif
