// Apple platforms: the preferences daemon writes each key atomically and keeps every process's
// view current, so the domain is `UserDefaults` as it is (no recovery copy). What the daemon does
// not do is run a writer's re-read, merge and write as one step, so this domain adds
// - a lock per key in the process (`KeyLocks`), so two objects of one set never write
//   over each other's merge;
// - for an App Group's suite (made with `UserDefaults(appGroup:)`, or made otherwise in a process
//   that made it so too: `SuiteNames`), a lock file in the group's
//   container (`FileLock`), so the app and its extensions take turns; it is held only while a
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
        /// suite whose name the library knows (``SuiteNames``); `nil` for other suites.
        let name: String?
        /// Where the lock files of an App Group suite are: in the group's container.
        let lockDirectory: URL?

        init(_ userDefaults: UserDefaults) {
            self.userDefaults = userDefaults
            if userDefaults === UserDefaults.standard {
                name = Self.applicationName
                lockDirectory = nil
            } else if let suite = SuiteNames.identity(
                of: userDefaults, extraCandidates: [Self.applicationName], probe: Self.suite(of:among:))
            {
                name = suite.name
                lockDirectory = suite.isAppGroup ? AppGroupContainers.lockDirectory(forGroup: suite.name) : nil
            } else {
                name = nil
                lockDirectory = nil
            }
        }

        /// The name of the app's own domain: its bundle identifier (else the process's name).
        static var applicationName: String { Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName }

        /// Which of `candidates` is the suite `userDefaults` reads and writes, found with public
        /// API only: a key of the library's own, `AppSettings.suiteProbe.<random>`, is set in
        /// `userDefaults` and removed again, and the candidate whose `UserDefaults` reads it
        /// meanwhile is the suite ("When you set a default value, it's changed synchronously
        /// within your process": `UserDefaults`). `nil` when no candidate, or more than one, does
        /// (the app's domain, for one, may be in several suites' search lists). One key is read
        /// per candidate, never a whole domain. Each of the two changes posts
        /// `UserDefaults.didChangeNotification`, as every change does.
        static func suite(of userDefaults: UserDefaults, among candidates: [String]) -> String? {
            let key = "AppSettings.suiteProbe.\(UInt64.random(in: 1...UInt64.max))"
            userDefaults.set(key, forKey: key)
            defer { userDefaults.removeObject(forKey: key) }
            let holders = candidates.filter { candidate in
                let suite = candidate == applicationName ? UserDefaults.standard : UserDefaults(suiteName: candidate)
                return suite?.string(forKey: key) == key
            }
            return holders.count == 1 ? holders[0] : nil
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
        /// Why ``synchronize()`` returned `false`.
        var synchronizeFailure: String { "UserDefaults could not write the domain \(name ?? "of its suite")" }

        func refresh() { userDefaults.synchronize() }

        /// Where the preferences daemon keeps the domain's file, for telling a domain that reads
        /// empty because its file is protected from one that holds nothing: in the App Group's
        /// container for a group's suite, else in the app's home (its container when sandboxed).
        /// `nil` for a suite whose name is not known.
        var preferencesFileURL: URL? {
            guard let name else { return nil }
            let home =
                lockDirectory != nil
                ? FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: name)
                : URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
            return home?.appendingPathComponent("Library/Preferences/\(name).plist", isDirectory: false)
        }

        /// Why the domain, which reads nothing under `key`, may hold it all the same: its file is
        /// there but `UserDefaults` reads it empty. Before the device's first unlock (and in a
        /// prewarmed launch) the file is under data protection, "so you can't access it prior to
        /// first unlock" (Apple DTS), and `UserDefaults` reads every key as missing. `nil` when
        /// the file is absent, or readable without the key: nothing is stored.
        func unavailability(forKey key: String) -> String? {
            guard let file = preferencesFileURL, FileManager.default.fileExists(atPath: file.path) else { return nil }
            let contents: Any
            do {
                contents = try PropertyListSerialization.propertyList(
                    from: try Data(contentsOf: file), format: nil)
            } catch let error as CocoaError where error.code == .fileReadNoPermission {
                return "its file \(file.path) cannot be read yet: protected data before the device's first unlock"
            } catch {
                // Damaged or unreadable for another reason: `UserDefaults` reads it as empty too,
                // and waiting would not bring the set back. Taken as nothing stored, as before.
                Log.error("\(key): \(file.path) could not be read: \(error)")
                return nil
            }
            guard (contents as? [String: Any])?[key] != nil else { return nil }
            return "UserDefaults reads nothing while its file \(file.path) holds the set: protected data before "
                + "the device's first unlock, or a prewarmed launch"
        }

        func readRecoveryCopy(forKey key: String) throws -> Data? { nil }
        func writeFlushingRecoveryCopy(
            _ data: Data, forKey key: String, replacing previous: Any?, _ write: () throws -> Void
        ) throws {
            try write()
        }
        func removeRecoveryCopy(forKey key: String) throws {}

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
                        try FileLock.withLock(
                            at: path, key: key, waitingAtMost: BackgroundAssertion.lockWaitLimit,
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
