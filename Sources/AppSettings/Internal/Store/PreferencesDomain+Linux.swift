// Linux (swift-corelibs-foundation): what Apple's preferences daemon does by itself, the
// library adds here. corelibs rewrites a domain's file in place and does not coordinate
// processes, so this domain
// - holds an exclusive `flock` per domain around every write (and a shared one around reads), so
//   processes writing different keys of one domain never drop each other's keys;
// - writes the domain's file itself, never in place (`DomainFile`): its changes are kept here, not
//   in CoreFoundation's memory, and ``synchronize()`` writes the file on disk with them applied to
//   a new file renamed into place, then has CoreFoundation re-read it. A kill or a power loss
//   leaves the old file or the new one, each with every other key and backup; a damaged file is
//   kept beside it before it is replaced;
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
        /// What was set and not yet written (see ``synchronize()``).
        private let pending = PendingDomainChanges()

        /// The domain of a named store (``AppSettingsStore``): `suiteName` `nil` for the app's own.
        /// Linux has no App Groups: every writer takes the domain's lock file.
        init(_ userDefaults: UserDefaults, suiteName: String?, isAppGroup: Bool) {
            self.userDefaults = userDefaults
            location = DomainLocation.of(suiteNamed: suiteName)
        }

        /// The domain of a `UserDefaults` the library was not told the name of (corelibs says it).
        init(unnamed userDefaults: UserDefaults) {
            self.userDefaults = userDefaults
            location = DomainLocation.of(userDefaults)
        }

        var domainFileURL: URL { location.domainFileURL }
        func recoveryCopyURL(forKey key: String) -> URL { location.recoveryCopyURL(forKey: key) }

        /// Removes a suite's domain, its file, and the library's directory for it.
        static func removeSuite(named name: String) throws {
            UserDefaults.standard.removePersistentDomain(forName: name)
            let location = DomainLocation.of(suiteNamed: name)
            // The new domain file a writer killed before its rename left, too.
            let leftOver = URL(
                fileURLWithPath: DomainFile.temporaryPath(replacing: location.domainFilePath), isDirectory: false)
            for url in [location.domainFileURL, leftOver, location.storeDirectory]
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

        /// Sets `data` under `key` for the next ``synchronize()``, which writes it.
        func setData(_ data: Data, forKey key: String) {
            // `UserDefaults.set(_:forKey:)` would first check the value is a property list by
            // bridging it from `NSData` back to `Data` byte by byte (about 60 ns a byte): for a
            // settings blob that costs more than the archiving. The bytes go in one `CFData`.
            pending.set(cfData(data), forKey: key)
        }

        /// What the app or a per-key library stored under `key`, leaving out `register(defaults:)`
        /// values (corelibs keeps those in `UserDefaults`, not in CoreFoundation's domain).
        func storedObject(forKey key: String) -> Any? {
            CFPreferencesCopyAppValue(cfString(key), location.applicationName)
        }

        /// Every value the domain stores, as CoreFoundation holds it (stored data is not bridged).
        ///
        /// Fetched from the domain itself in one call: looking each key up with
        /// `CFPreferencesCopyAppValue` would first merge the application's whole search list (eight
        /// domains) into one dictionary, again after every ``refresh()``.
        func forEachStoredValue(_ body: (String, Any) -> Void) {
            // No key list: no domain (its directory cannot be found). `CFPreferencesCopyMultiple`,
            // imported as never `nil`, returns `NULL` only then.
            guard
                let keys = CFPreferencesCopyKeyList(
                    location.applicationName, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
            else { return }
            let values = CFPreferencesCopyMultiple(
                keys, location.applicationName, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
            let count = CFDictionaryGetCount(values)
            var names = [UnsafeRawPointer?](repeating: nil, count: count)
            var objects = [UnsafeRawPointer?](repeating: nil, count: count)
            CFDictionaryGetKeysAndValues(values, &names, &objects)
            for (name, object) in zip(names, objects) {
                guard let name, let object,
                    let key = Unmanaged<AnyObject>.fromOpaque(name).takeUnretainedValue() as? String
                else { continue }
                body(key, Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue())
            }
        }

        /// Sets a property-list `object` (a backup of what other code stored) for the next ``synchronize()``.
        func setObject(_ object: Any, forKey key: String) { pending.set(propertyListObject(object), forKey: key) }
        func removeObject(forKey key: String) { pending.set(nil, forKey: key) }

        /// Writes the changes set since the last call to the domain's file, as it is on disk now (the
        /// caller holds the exclusive lock), with ``DomainFile/write(_:at:)``: a new file renamed into
        /// place. Then, as without changes, drops what CoreFoundation holds of the domain, so that its
        /// next read re-reads the file.
        ///
        /// This domain only: corelibs' `UserDefaults.synchronize()` synchronizes every domain the
        /// process has read (`CFPreferencesAppSynchronize` → `_CFSynchronizeDomainCache`): it writes
        /// every other domain with unsaved changes and makes every one re-parse its file at its next
        /// read, and its result is `false` when any of them fails. A save would pay for the app's
        /// other domains, and blame its own file for their failures.
        func synchronize() -> Bool {
            let changes = pending.take()
            var failure: DomainFile.Failure?
            if !changes.isEmpty {
                do throws(DomainFile.Failure) {
                    if let kept = try DomainFile.write(changes, at: location) {
                        Log.notice("\(location.domainFilePath) could not be read; its bytes were kept in \(kept)")
                    }
                } catch {
                    failure = error
                }
            }
            pending.lastFailure.withLock { $0 = failure }
            // The library never sets values in CoreFoundation's memory, so this writes nothing of its
            // own: CoreFoundation forgets the domain and re-reads it at its next read. (Changes the
            // app set with `UserDefaults` in this process and has not synchronized are written by
            // corelibs here, in place, as its own `synchronize()` would.)
            let dropped = CFPreferencesSynchronize(
                location.applicationName, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
            return failure == nil && dropped
        }

        /// Why ``synchronize()`` returned `false`, naming the file.
        var synchronizeFailure: String {
            pending.lastFailure.withLock { $0?.reason } ?? "UserDefaults could not write \(location.domainFilePath)"
        }

        /// Whether the last ``synchronize()`` failed after its new file was already in place.
        private var failedAfterReplacing: Bool { pending.lastFailure.withLock { $0?.replaced ?? false } }

        /// Makes the next read re-read the domain's file: a ``synchronize()`` without changes.
        func refresh() { _ = synchronize() }

        /// Why the domain reads nothing under `key` though its file holds bytes: the file is not a
        /// property-list dictionary (CoreFoundation reads it as an empty domain). `nil` otherwise.
        func damage(forKey key: String) -> String? {
            let path = location.domainFilePath
            guard case .damaged(let bytes)? = try? DomainFile.contents(at: path) else { return nil }
            return "the domain file \(path) is damaged (\(bytes.count) bytes that are not a property list), and "
                + "no recovery copy of the set was found; it loads as nothing stored, and the next save keeps "
                + "its bytes in \(path).unreadable-<milliseconds> before it replaces the file"
        }

        // MARK: Recovery copy

        /// Why the domain, which reads nothing under `key`, may hold it all the same: its file
        /// exists but cannot be opened (corelibs then reads it as empty; no permission, for this
        /// user or for a root without `CAP_DAC_OVERRIDE`). `nil` otherwise.
        func unavailability(forKey key: String) -> String? {
            let path = location.domainFilePath
            guard access(path, F_OK) == 0, access(path, R_OK) != 0 else { return nil }
            return "its file \(path) exists but cannot be read: \(String(cString: strerror(errno)))"
        }

        /// The recovery copy of `key`; `nil` when there is none. A copy that exists but cannot be
        /// opened (no permission, a directory in its place) may hold the set: that is
        /// ``AppSettingsError/storeUnavailable(key:reason:)``, so that no write replaces it; a copy
        /// refused for what it is (a link, a FIFO, over the limit) or damaged is `readFailed`.
        /// Called under ``withLock(exclusive:key:_:)``, which checked the key and the directories.
        func readRecoveryCopy(forKey key: String) throws -> Data? {
            let path = location.recoveryCopyPath(forKey: key)
            do {
                return try RecoveryCopyFormat.archive(inFileAtPath: path)
            } catch  where error.isDenied {
                throw AppSettingsError.storeUnavailable(
                    key: key, reason: "its recovery copy exists but cannot be read: \(error)")
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
        func writeFlushingRecoveryCopy(
            _ data: Data, forKey key: String, replacing previous: Any?, _ write: () throws -> Void
        ) throws {
            let copy = RecoveryCopyWrite(location: location, key: key, data: data)
            let domainResult = Result { try write() }
            let copyResult = copy.wait()
            let copyPath = location.recoveryCopyPath(forKey: key)
            switch (domainResult, copyResult) {
            case (.success, .success):
                return
            case (.success, .failure(let copyError)):
                // The domain's file holds the new set: written again with the set before.
                setOrRemove(previous, forKey: key)
                let outcome =
                    synchronize()
                    ? "the domain was put back to the set it held before: nothing was stored"
                    : "\(location.domainFilePath) holds the new set and could not be put back; \(copyPath) holds the "
                        + "set before"
                throw AppSettingsError.storeFailed(key: key, reason: "\(reason(of: copyError)); \(outcome)")
            case (.failure(let domainError), .success(let undo)):
                putBackIfReplaced(previous, forKey: key)
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
                putBackIfReplaced(previous, forKey: key)
                throw AppSettingsError.storeFailed(
                    key: key, reason: "\(reason(of: domainError)); \(reason(of: copyError)); nothing was stored")
            }
        }

        /// Sets `object` (`nil`: nothing) under `key` for the next ``synchronize()``.
        private func setOrRemove(_ object: Any?, forKey key: String) {
            pending.set(object.map { $0 as AnyObject }, forKey: key)
        }

        /// A write whose new file was renamed into place but could not be made durable (its
        /// directory could not be flushed): the file is written again with what `key` held before.
        /// Otherwise the file was left as it was, and nothing needs putting back.
        private func putBackIfReplaced(_ object: Any?, forKey key: String) {
            guard failedAfterReplacing else { return }
            setOrRemove(object, forKey: key)
            _ = synchronize()
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
                let path = location.domainFilePath
                if let refusal = GuardedFile.refusalOfNonRegularFile(at: path) {
                    throw exclusive
                        ? AppSettingsError.storeFailed(key: key, reason: refusal + "; nothing was written")
                        : AppSettingsError.readFailed(key: key, reason: refusal)
                }
                // A file its owner made read-only is left as it is, as corelibs' write would leave it.
                if exclusive, let refusal = DomainFile.refusalOfReadOnlyFile(at: path) {
                    throw AppSettingsError.storeFailed(key: key, reason: refusal + "; nothing was written")
                }
                return try body()
            }
        }
    }

    /// The Linux domain has every capability: its file is the library's to write, and a recovery
    /// copy of each set is kept beside it.
    extension PreferencesDomain: StorageDomain, AvailabilityReporting, DomainFileWriting, RecoveryCopying {}
#endif
