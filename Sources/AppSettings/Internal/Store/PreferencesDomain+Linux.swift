// Linux (swift-corelibs-foundation), which rewrites a domain's file in place and does not
// coordinate processes: this domain adds what Apple's preferences daemon does by itself.
// - An exclusive `flock` per domain around every write, a shared one around reads.
// - The domain's file is written by the library (`DomainFile`), never in place: a new file renamed
//   into place, so a kill or a power loss leaves the old file or the new one, whole.
// - A recovery copy of each written blob (`RecoveryCopyFormat`), written on another thread while
//   the domain is, used when the domain comes back without the key.
// - Stored bytes go through CoreFoundation, skipping `UserDefaults`' byte-by-byte `Data` bridging.
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
            // CoreFoundation hands out the stored `NSData` (`object(forKey:)` would bridge it byte by
            // byte). The library writes its keys for the current user and any host, so they are looked
            // up there first, sparing the application search list's six other files; a key not
            // found there is looked up along the search list (an administrator's file).
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
            // `UserDefaults.set(_:forKey:)` would bridge the bytes back to `Data` one by one to check
            // the value is a property list, costing more than the archiving.
            pending.set(cfData(data), forKey: key)
        }

        /// What the app or a per-key library stored under `key`, leaving out `register(defaults:)`
        /// values (corelibs keeps those in `UserDefaults`, not in CoreFoundation's domain).
        func storedObject(forKey key: String) -> Any? {
            CFPreferencesCopyAppValue(cfString(key), location.applicationName)
        }

        /// Every value the domain stores, as CoreFoundation holds it, fetched in one call (looking
        /// each key up would merge the application's whole search list each time).
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

        /// Writes the changes set since the last call to the domain's file as it is on disk now
        /// (the caller holds the exclusive lock), as a new file renamed into place; then drops what
        /// CoreFoundation holds of the domain, so that its next read re-reads the file.
        ///
        /// This domain only: corelibs' `UserDefaults.synchronize()` writes and reloads every domain
        /// the process has read (`_CFSynchronizeDomainCache`), and fails when any of them fails.
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
            // The library sets nothing in CoreFoundation's memory: this only makes it re-read the
            // domain (and writes, in place, what the app set with `UserDefaults` and did not save).
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

        /// The recovery copy of `key`, or `nil`. A copy that exists but cannot be opened may hold
        /// the set: `storeUnavailable`, so that no write replaces it; one refused for what it is (a
        /// link, a FIFO, over the limit) or damaged is `readFailed`. Called under ``withLock(exclusive:key:_:)``.
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
        /// written on another thread. All or nothing: when one fails, the other is put back as it
        /// was, and the error says so, or which file holds which set when that fails too.
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

        /// A write whose new file was renamed into place but not made durable: written again
        /// with what `key` held before. (Otherwise the file was left as it was.)
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
