// Linux (swift-corelibs-foundation): what Apple's preferences daemon does by itself, the
// library adds here. corelibs rewrites a domain's file in place and does not coordinate
// processes, so this domain
// - holds an exclusive `flock` per domain around every write (and a shared one around reads), so
//   processes writing different keys of one domain never drop each other's keys;
// - keeps a copy of each written blob in a file of its own, with two slots written in turns in
//   place and flushed with `fdatasync` (`RecoveryCopyFormat`), so that neither a process killed
//   mid-write nor a power loss can damage it or bring back an older copy once the save returned
//   (a new file, when the set outgrows its slots, is renamed into place and its directory
//   flushed); it is written on another thread while CoreFoundation rewrites the domain. When the
//   domain comes back without the key (a damaged domain file loads as an empty domain; a power
//   loss can leave one truncated, or lose a new one), the copy is used;
// - reads and writes stored bytes through CoreFoundation, skipping `UserDefaults`' byte-by-byte
//   bridging of `Data`.
#if os(Linux) && !APPLE_STAND_INS
    import CoreFoundation
    import Foundation
    import Glibc

    /// One `UserDefaults` domain as the store uses it on Linux.
    struct PreferencesDomain {
        let userDefaults: UserDefaults
        let location: DomainLocation

        init(_ userDefaults: UserDefaults) {
            self.userDefaults = userDefaults
            location = DomainLocation.of(userDefaults)
        }

        var domainFileURL: URL? { location.domainFileURL }
        func recoveryCopyURL(forKey key: String) -> URL? { location.recoveryCopyURL(forKey: key) }

        /// Removes a suite's domain, its file, and the library's directory for it.
        static func removeSuite(named name: String) throws {
            UserDefaults.standard.removePersistentDomain(forName: name)
            let location = DomainLocation.of(suiteNamed: name)
            for url in [location.domainFileURL, location.storeDirectory]
            where FileManager.default.fileExists(atPath: url.path) {
                do {
                    try FileManager.default.removeItem(at: url)
                } catch {
                    throw AppSettingsError.storeFailed(key: name, reason: "could not remove \(url.path): \(error)")
                }
            }
        }

        // MARK: Values

        func value(forKey key: String) -> PreferencesValue? {
            // `object(forKey:)` bridges stored data to `Data` byte by byte (about 65 ns a byte);
            // CoreFoundation hands out the stored object (an `NSData`), whose bytes are copied at once.
            // The library writes its keys to the application's domain for the current user and any
            // host (`CFPreferencesSetAppValue`), so they are looked up there first: after a write,
            // the application search list would first check six more files (the any-user and
            // current-host domains, the global ones) at every lookup, 21 µs against 10 µs here.
            // A key not found there is looked up along the search list (an administrator's file).
            let name = cfString(key)
            if let value = CFPreferencesCopyValue(
                name, location.applicationName, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
                ?? CFPreferencesCopyAppValue(name, location.applicationName),
                let data = value as? NSData
            {
                return .data(Data(bytes: data.bytes, count: data.length))
            }
            guard let value = userDefaults.object(forKey: key) else { return nil }
            if let data = value as? Data { return .data(data) }
            return .other(value, typeName: foundTypeName(of: value))
        }

        /// Sets `data` under `key` in memory; ``synchronize()`` flushes it.
        func setData(_ data: Data, forKey key: String) {
            // `set(_:forKey:)` first checks the value is a property list by bridging it from
            // `NSData` back to `Data` byte by byte (about 60 ns a byte): for a settings blob that
            // costs more than the archiving. The value is `Data`, so the check is skipped and the
            // bytes go to CoreFoundation as `set` would pass them, in one `NSData`, copied at once.
            let object = data.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
            CFPreferencesSetAppValue(cfString(key), object, location.applicationName)
        }

        /// What the app or a per-key library stored under `key`, leaving out `register(defaults:)`
        /// values (corelibs keeps those in `UserDefaults`, not in CoreFoundation's domain).
        func storedObject(forKey key: String) -> Any? {
            CFPreferencesCopyAppValue(cfString(key), location.applicationName)
        }

        /// Every value the domain stores, as CoreFoundation holds it (stored data is not bridged).
        func forEachStoredValue(_ body: (String, Any) -> Void) {
            guard
                let keys = CFPreferencesCopyKeyList(
                    location.applicationName, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
            else { return }
            for case let key as String in unsafeBitCast(keys, to: NSArray.self) {
                if let value = CFPreferencesCopyAppValue(cfString(key), location.applicationName) { body(key, value) }
            }
        }

        func setObject(_ object: Any, forKey key: String) { userDefaults.set(object, forKey: key) }
        func removeObject(forKey key: String) { userDefaults.removeObject(forKey: key) }
        func synchronize() -> Bool { userDefaults.synchronize() }
        /// Why ``synchronize()`` returned `false`, naming the file.
        var synchronizeFailure: String { "UserDefaults could not write \(location.domainFilePath)" }

        func refresh() { userDefaults.synchronize() }

        // MARK: Recovery copy

        /// Why the domain, which reads nothing under `key`, may hold it all the same: its file
        /// exists but cannot be opened (corelibs then reads it as empty). `nil` otherwise.
        func unavailability(forKey key: String) -> String? {
            let path = location.domainFilePath
            guard access(path, F_OK) == 0, access(path, R_OK) != 0 else { return nil }
            return "its file \(path) exists but cannot be read: \(String(cString: strerror(errno)))"
        }

        func readRecoveryCopy(forKey key: String) throws -> Data? {
            try location.checkKnown(key: key, writing: false)
            let path = location.recoveryCopyPath(forKey: key)
            do {
                return try RecoveryCopyFormat.archive(inFileAtPath: path)
            } catch {
                throw AppSettingsError.readFailed(key: key, reason: "could not read the recovery copy: \(error)")
            }
        }

        /// Runs `write` (which sets and flushes the domain) while the recovery copy of `data` is
        /// written on another thread: the two take about as long, and this returns when both are done.
        ///
        /// All or nothing: when one of the two fails, the other is put back as it was (the domain's
        /// value in memory and on disk, the copy's slot or file), so that both still hold the set
        /// stored before, and the error says so; when that cannot be done either, the error says
        /// which file holds which set.
        func writeFlushingRecoveryCopy(_ data: Data, forKey key: String, _ write: () throws -> Void) throws {
            let previous = storedObject(forKey: key)
            let copy = RecoveryCopyWrite(location: location, key: key, data: data)
            let domainResult = Result { try write() }
            let copyResult = copy.wait()
            let copyPath = location.recoveryCopyPath(forKey: key)
            switch (domainResult, copyResult) {
            case (.success, .success):
                return
            case (.success, .failure(let copyError)):
                restore(previous, forKey: key)
                let outcome =
                    synchronize()
                    ? "the domain was put back to the set it held before: nothing was stored"
                    : "\(location.domainFilePath) holds the new set and could not be put back; \(copyPath) holds the "
                        + "set before"
                throw AppSettingsError.storeFailed(key: key, reason: "\(reason(of: copyError)); \(outcome)")
            case (.failure(let domainError), .success(let undo)):
                restore(previous, forKey: key)
                let outcome: String
                do throws(AppSettingsError) {
                    try copy.undo(undo)
                    outcome = "the recovery copy was put back to the set before: nothing was stored"
                } catch {
                    outcome =
                        "\(copyPath) holds the new set and could not be put back (\(reason(of: error))); the domain "
                        + "holds the set before, which loads"
                }
                throw AppSettingsError.storeFailed(key: key, reason: "\(reason(of: domainError)); \(outcome)")
            case (.failure(let domainError), .failure(let copyError)):
                restore(previous, forKey: key)
                throw AppSettingsError.storeFailed(
                    key: key, reason: "\(reason(of: domainError)); \(reason(of: copyError)); nothing was stored")
            }
        }

        /// Puts `object` (`nil`: nothing) back under `key` in memory, as it was before a write.
        private func restore(_ object: Any?, forKey key: String) {
            CFPreferencesSetAppValue(cfString(key), object.map { $0 as AnyObject }, location.applicationName)
        }

        private func reason(of error: any Error) -> String {
            switch error {
            case AppSettingsError.storeFailed(_, let reason): reason
            default: "\(error)"
            }
        }

        func removeRecoveryCopy(forKey key: String) throws {
            let url = location.recoveryCopyURL(forKey: key)
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw AppSettingsError.storeFailed(key: key, reason: "could not remove \(url.path): \(error)")
            }
        }

        // MARK: Lock

        /// Runs `body` holding the domain's lock file; exclusive for writers, shared for readers.
        func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T {
            try location.checkKnown(key: key, writing: exclusive)
            return try FileLock.withLock(at: location.lockFilePath, exclusive: exclusive, key: key) {
                // CoreFoundation opens the domain's file blocking and follows links: what is not a
                // regular file there is refused before it is touched.
                if let refusal = GuardedFile.refusalOfNonRegularFile(at: location.domainFilePath) {
                    throw exclusive
                        ? AppSettingsError.storeFailed(key: key, reason: refusal + "; nothing was written")
                        : AppSettingsError.readFailed(key: key, reason: refusal)
                }
                return try body()
            }
        }
    }

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
                let child = Mirror(reflecting: userDefaults).children.first { $0.label == "suite" }
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
        /// `$XDG_CONFIG_HOME` when it is an absolute path, else `$HOME/.config`, from the same
        /// CoreFoundation function corelibs' preferences call, once per process. (Foundation's
        /// `homeDirectoryForCurrentUser` reads the password file and ignores `HOME`, which
        /// sandboxes, containers and CI runners set.)
        static let path: String = unsafeBitCast(_CFXDGCreateConfigHomePath(), to: NSString.self) as String
        static var url: URL { URL(fileURLWithPath: path, isDirectory: true) }
    }

    /// `Bundle.main.bundleIdentifier`, from CoreFoundation's main bundle (which `Bundle.main`
    /// wraps) without making the `Bundle`: about 80 µs at a process's first settings object.
    private func mainBundleIdentifier() -> String? {
        guard let bundle = CFBundleGetMainBundle(), let identifier = CFBundleGetIdentifier(bundle) else { return nil }
        return unsafeBitCast(identifier, to: NSString.self) as String
    }

    /// A string as CoreFoundation takes it (corelibs' `NSString` is its `CFString`).
    /// A CoreFoundation string, not a Swift-backed `NSString`: CoreFoundation reads a Swift-backed
    /// string through Swift's bridge for every character it hashes, compares or formats, and
    /// every lookup formats the domain's cache key from the application name (a lookup of the
    /// stored set took about 33 µs that way against 18 µs, on a loaded machine).
    private func cfString(_ string: String) -> CFString {
        var string = string
        let native: CFString? = string.withUTF8 { bytes in
            CFStringCreateWithBytes(nil, bytes.baseAddress, bytes.count, CFStringBuiltInEncodings.UTF8.rawValue, false)
        }
        // `nil` only for bytes that are not UTF-8, which a `String`'s never are.
        return native ?? unsafeBitCast(NSString(string: string), to: CFString.self)
    }

    private func systemError(key: String, _ what: String) -> AppSettingsError {
        .storeFailed(key: key, reason: "\(what): \(String(cString: strerror(errno)))")
    }

    /// Writes a recovery copy on another thread, started at once.
    private final class RecoveryCopyWrite: Sendable {
        /// A queue of its own: unlike the global queues, it gets a thread even when every worker
        /// thread is busy, for instance in saves waiting for their copies.
        private static let queue = DispatchQueue(label: "AppSettings.recovery-copy", attributes: .concurrent)
        private let done = DispatchSemaphore(value: 0)
        private let result = Protected<Result<Undo, AppSettingsError>?>(nil)
        private let location: DomainLocation
        private let key: String

        /// How to take a written copy back.
        enum Undo {
            /// Make the slot at `offset` unreadable (its magic zeroed): the other slot, with the
            /// copy before, is the newest whole one again.
            case slot(offset: Int)
            /// The file was made anew: put back the one before (`nil`: there was none).
            case file(previous: Data?)
        }

        init(location: DomainLocation, key: String, data: Data) {
            self.location = location
            self.key = key
            Self.queue.async { [self] in
                InjectedFault.delayRecoveryCopy()
                let outcome: Result<Undo, AppSettingsError>
                do throws(AppSettingsError) {
                    outcome = .success(try write(data))
                } catch {
                    outcome = .failure(error)
                }
                result.withLock { $0 = outcome }
                done.signal()
            }
        }

        /// Waits until the copy is written: how to take it back, or what writing it threw.
        func wait() -> Result<Undo, AppSettingsError> {
            done.wait()
            return result.withLock { $0! }
        }

        /// Takes a written copy back.
        func undo(_ undo: Undo) throws(AppSettingsError) {
            let target = location.recoveryCopyPath(forKey: key)
            switch undo {
            case .slot(let offset):
                let descriptor = try open(target)
                defer { close(descriptor) }
                guard writeWhole(Data(count: RecoveryCopyFormat.magic.count), to: descriptor, at: offset),
                    fdatasync(descriptor) == 0
                else { throw systemError(key: key, "could not write \(target)") }
            case .file(let previous?):
                try replace(target, with: previous)
            case .file(nil):
                guard unlink(target) == 0 else { throw systemError(key: key, "could not remove \(target)") }
                try location.flushStoreDirectory(key: key)
            }
        }

        private func open(_ target: String) throws(AppSettingsError) -> Int32 {
            guard let descriptor = try openIfPresent(target) else {
                throw .storeFailed(key: key, reason: "\(target) is gone")
            }
            return descriptor
        }

        /// The copy opened for writing, never through a link; `nil` when there is none.
        private func openIfPresent(_ target: String) throws(AppSettingsError) -> Int32? {
            do {
                return try GuardedFile.open(target, O_RDWR)
            } catch  where error.isMissing {
                return nil
            } catch {
                throw .storeFailed(key: key, reason: "could not open the recovery copy: \(error)")
            }
        }

        /// In place when the file has two slots with room (see ``RecoveryCopyFormat``): the slot
        /// without the newest whole copy, then `fdatasync`. Otherwise a new file: temporary file,
        /// `fdatasync`, `rename`, then its directory flushed, so that after a power loss it is
        /// still this file.
        private func write(_ archive: Data) throws(AppSettingsError) -> Undo {
            let target = location.recoveryCopyPath(forKey: key)
            var existing: Data?
            if let descriptor = try openIfPresent(target) {
                existing = Self.readWhole(descriptor)
                if case .inPlace(let offset, let bytes) = RecoveryCopyFormat.write(archive, over: existing) {
                    let written =
                        writeWhole(bytes, to: descriptor, at: offset)
                        && (InjectedFault.isInjected(.noSlotFlush) || fdatasync(descriptor) == 0)
                    let error = written ? nil : systemError(key: key, "could not write \(target)")
                    close(descriptor)
                    if let error { throw error }
                    return .slot(offset: offset)
                }
                close(descriptor)
            }
            guard case .replace(let file) = RecoveryCopyFormat.write(archive, over: existing) else {
                preconditionFailure("a copy that is not there is written as a new file")
            }
            try replace(target, with: file)
            return .file(previous: existing)
        }

        /// Writes `file` to a new temporary file under a name nobody can foresee (`O_EXCL`, never
        /// through a link), flushes it, renames it over `target` and flushes the directory.
        private func replace(_ target: String, with file: Data) throws(AppSettingsError) {
            let random = String(UInt64.random(in: .min ... .max), radix: 36)
            let temporary = appendingPathComponent(
                ".\(location.keyFileName(key)).\(random).tmp", to: location.storeDirectoryPath)
            let descriptor: Int32
            do {
                descriptor = try GuardedFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL)
            } catch {
                throw .storeFailed(key: key, reason: "could not create a temporary file: \(error)")
            }
            let complete = writeWhole(file, to: descriptor, at: 0)
            let synced = fdatasync(descriptor) == 0
            close(descriptor)
            guard complete, synced, rename(temporary, target) == 0 else {
                let error = systemError(key: key, "could not write \(target)")
                unlink(temporary)
                throw error
            }
            if !InjectedFault.isInjected(.noDirectoryFlush) { try location.flushStoreDirectory(key: key) }
        }

        /// The file's bytes, or `nil` when they cannot be read or are more than a copy may have
        /// (the file is then made anew).
        private static func readWhole(_ descriptor: Int32) -> Data? {
            let size = lseek(descriptor, 0, SEEK_END)
            guard size >= 0, size <= RecoveryCopyFormat.maximumFileByteCount else { return nil }
            var data = Data(count: Int(size))
            let complete = data.withUnsafeMutableBytes { buffer -> Bool in
                var done = 0
                while done < buffer.count {
                    let result = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(done))
                    if result < 0, errno == EINTR { continue }
                    guard result > 0 else { return false }
                    done += result
                }
                return true
            }
            return complete ? data : nil
        }

        private func writeWhole(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool {
            data.withUnsafeBytes { buffer -> Bool in
                var done = 0
                while done < buffer.count {
                    let result = pwrite(
                        descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
                    if result < 0, errno == EINTR { continue }
                    guard result > 0 else { return false }
                    done += result
                }
                return true
            }
        }
    }
#endif
