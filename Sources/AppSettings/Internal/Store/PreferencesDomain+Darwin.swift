// Apple platforms: the preferences daemon writes each key atomically and keeps every process's
// view current, so the domain is `UserDefaults` as it is (no recovery copy). What the daemon does
// not do is run a writer's re-read, merge and write as one step, so this domain adds
// - a lock per key in the process (`KeyLocks`), so two objects of one set never write
//   over each other's merge;
// - for an App Group's suite (`AppSettingsStore.appGroup(_:)`, `UserDefaults(appGroup:)`), a lock
//   file in the group's container (`FileLock`, the container touched at the first write), so the app and its extensions take turns; it is held only while a
//   background-task assertion keeps the process from being suspended (iOS terminates an app that
//   is suspended holding a file lock in a shared container, 0xdead10cc).
#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation
    #if APPLE_STAND_INS
        import AppleStandIns
    #endif

    /// One `UserDefaults` domain as the store uses it on Apple platforms.
    struct PreferencesDomain {
        let userDefaults: UserDefaults
        /// The domain's name: the app's (its bundle identifier) for `.standard`, the suite's for a
        /// named store (``AppSettingsStore``); `nil` for a `UserDefaults` the library cannot name.
        let name: String?
        /// Whether the suite is an App Group's: its writers take the group's lock file.
        let isAppGroup: Bool

        /// The domain of a named store: `suiteName` `nil` for the app's own.
        init(_ userDefaults: UserDefaults, suiteName: String?, isAppGroup: Bool) {
            self.userDefaults = userDefaults
            name = suiteName ?? Self.applicationName
            self.isAppGroup = suiteName != nil && isAppGroup
        }

        /// The domain of a `UserDefaults` the library cannot name: Apple platforms do not say which
        /// suite it reads, and the library never writes into it to find out. Its writers take the
        /// in-process lock only, and its notices are the app's.
        init(unnamed userDefaults: UserDefaults) {
            self.userDefaults = userDefaults
            name = nil
            isAppGroup = false
        }

        /// Where the lock files of an App Group suite are: in the group's container, made at the
        /// first write (not when an object is made: macOS asks the user before an app touches a
        /// group container it is not provisioned for); `nil` for other suites, and for a group
        /// whose container cannot be used.
        var lockDirectory: URL? {
            guard isAppGroup, let name else { return nil }
            return AppGroupContainers.lockDirectory(forGroup: name)
        }

        /// The name of the app's own domain: its bundle identifier (else the process's name).
        static var applicationName: String { Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName }

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
            if let registered = registered as? NSObject, registered.isEqual(value) { return nil }
            return value
        }

        /// Every value the domain stores. For a suite whose name is not known, everything the
        /// `UserDefaults` reads (its global and registered values too): more than the domain, never less.
        func forEachStoredValue(_ body: (String, Any) -> Void) {
            let values =
                name.flatMap { userDefaults.persistentDomain(forName: $0) } ?? userDefaults.dictionaryRepresentation()
            for (key, value) in values { body(key, value) }
        }

        func setData(_ data: Data, forKey key: String) { userDefaults.set(data, forKey: key) }
        func setObject(_ object: Any, forKey key: String) { userDefaults.set(object, forKey: key) }
        func removeObject(forKey key: String) { userDefaults.removeObject(forKey: key) }
        func synchronize() -> Bool { userDefaults.synchronize() }
        var synchronizeFailure: String { "UserDefaults could not write the domain \(name ?? "of its suite")" }

        func refresh() { userDefaults.synchronize() }

        /// Why the domain, which reads nothing under `key`, may hold it all the same: protected data
        /// is not available (while the device is locked, or before its first unlock, the domain's
        /// file cannot be read, and `UserDefaults` reads every key as missing), or was not when
        /// this process read the domain empty before. Told by a public signal (``ProtectedData``),
        /// never by the daemon's own file. The observer of protected data becoming available is
        /// registered first, so that its notice cannot fall between this check and the object's
        /// reload. `nil` for a suite the library cannot name: nothing tells its emptiness from an
        /// unavailable one (see ``AppSettingsStore``).
        ///
        /// - Throws: ``AppSettingsError/readFailed(key:reason:)`` when that cannot be told.
        func unavailability(forKey key: String) throws -> String? {
            guard let name else { return nil }
            StoreAvailabilityWatcher.start()
            return try ProtectedData.unavailability(forKey: key, inDomain: name)
        }

        /// The name of the Darwin notification posted after each write of `key`: it names the
        /// domain, so apps and suites that use the same key do not wake each other. For a suite
        /// whose name is not known, it names the app instead (notify(3) names are seen by every
        /// process of the device): the app's own processes hear each other, no other app does.
        func noticeName(forKey key: String) -> String {
            guard let name else {
                return "AppSettings.storedSettingsDidChange.unknownSuite/" + Self.applicationName + "/" + key
            }
            return "AppSettings.storedSettingsDidChange/" + name + "/" + key
        }

        /// Runs `body` as the only writer of `key`: in this process always, and across the app and
        /// its extensions for an App Group suite. Readers take no lock (the daemon's reads are
        /// whole).
        func withLock<T>(exclusive: Bool, key: String, _ body: () throws -> T) throws -> T {
            guard exclusive else { return try body() }
            return try KeyLocks.withLock(key: key) {
                guard let lockDirectory else { return try body() }
                let path = lockDirectory.appendingPathComponent(
                    fileNameComponent(key) + ".lock", isDirectory: false
                ).path
                return try BackgroundAssertion.whileHeld(
                    reason: "AppSettings: writing the settings \(key)",
                    { isExpiring in
                        // Waits a bounded time, and stops waiting, or does not write, once the
                        // process is about to be suspended: it must not be suspended holding the file.
                        let limit = BackgroundAssertion.lockWaitLimit.components
                        return try FileLock.withLock(
                            at: path, exclusive: true, key: key,
                            waitingAtMost: Double(limit.seconds) + Double(limit.attoseconds) / 1e18,
                            stoppingWhen: isExpiring
                        ) {
                            guard !isExpiring() else {
                                throw AppSettingsError.storeFailed(
                                    key: key,
                                    reason: "the app is about to be suspended, so nothing was written; "
                                        + "the next synchronization writes the changes")
                            }
                            return try body()
                        }
                    },
                    otherwise: {
                        // The process is being suspended: holding the group's lock file now could get it
                        // terminated. Written under the in-process lock alone.
                        Log.notice("\(key): written without the App Group's lock (the app is being suspended)")
                        return try body()
                    }
                )
            }
        }
    }

    /// The preferences daemon writes each key atomically and owns the domain's file (its place is
    /// not the library's to say): no recovery copy, no file of the library's.
    extension PreferencesDomain: StorageDomain, AvailabilityReporting {}

    /// The lock directories of App Groups, found once per group.
    enum AppGroupContainers {
        private static let known = Protected<[String: URL?]>([:])

        static func lockDirectory(forGroup group: String) -> URL? {
            if let known = known.withLock({ $0[group] }) { return known }
            // `nil` when the app has no such App Group entitlement: then a suite of that name is
            // the app's alone, and the in-process lock is enough. On macOS "a URL of the expected
            // form is always returned, even if the app group is invalid"
            // (`containerURL(forSecurityApplicationGroupIdentifier:)`): a directory that cannot be
            // made there is taken the same way, rather than failing every save.
            var directory = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)?
                .appendingPathComponent("Library", isDirectory: true)
                .appendingPathComponent("Application Support", isDirectory: true)
                .appendingPathComponent("AppSettings", isDirectory: true)
            if let candidate = directory {
                do {
                    try FileManager.default.createDirectory(at: candidate, withIntermediateDirectories: true)
                } catch {
                    Log.error(
                        "App Group \(group): its container cannot be used (\(error)), so its writers take turns "
                            + "within this process only; is the app entitled to the group?")
                    directory = nil
                }
            }
            known.withLock { $0[group] = directory }
            return directory
        }
    }

    /// A background-task assertion around work that must not be suspended half-way.
    enum BackgroundAssertion {
        /// How long a writer waits for an App Group's lock file, which another process of the
        /// group holds only while it writes (tests shorten it).
        nonisolated(unsafe) static var lockWaitLimit: Duration = .seconds(5)
        /// How long the system's expiration call waits for `body` to stop and release what it
        /// holds before it returns (the process is suspended once it returns).
        static let stopLimit: Duration = .seconds(2)

        /// Runs `body` while the process holds an expiring-activity assertion, or `otherwise` when
        /// the system refuses one (the process is about to be suspended). `body` gets a function
        /// that says whether the assertion is expiring: `performExpiringActivity` then calls its
        /// block a second time, with `true`, while the first still runs; `body` must stop (and
        /// release its lock) on seeing it, and that call waits for it, a bounded time, so the
        /// process is not suspended holding the lock. macOS does not suspend processes this way:
        /// `body` runs as it is.
        static func whileHeld<T>(
            reason: String,
            _ body: (_ isExpiring: @Sendable () -> Bool) throws -> T,
            otherwise: () throws -> T
        ) throws -> T {
            #if os(macOS) || APPLE_STAND_INS_MACOS
                return try body { false }
            #else
                // nil: no answer yet; then held, refused or expired.
                let state = Protected<ActivityState?>(nil)
                let answered = DispatchSemaphore(value: 0)
                let running = DispatchGroup()
                running.enter()  // left when `body` returned (or `otherwise` runs)
                ProcessInfo.processInfo.performExpiringActivity(withReason: reason) { expired in
                    let previous = state.withLock { state in
                        defer { state = expired ? (state == nil ? .refused : .expired) : (state ?? .held) }
                        return state
                    }
                    if previous == nil { answered.signal() }
                    if !expired {
                        // The assertion lasts until this returns: until `body` returned.
                        running.wait()
                    } else if previous == .held {
                        // About to be suspended while `body` runs: it sees `.expired` and stops.
                        _ = running.wait(timeout: .now() + .milliseconds(Int(stopLimit.components.seconds * 1000)))
                    }
                }
                answered.wait()
                defer { running.leave() }
                guard state.withLock({ $0 }) != .refused else { return try otherwise() }
                return try body { state.withLock { $0 == .expired } }
            #endif
        }

        private enum ActivityState: Sendable {
            case held
            case refused
            case expired
        }
    }
#endif
