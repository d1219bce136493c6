// Real second processes need `Process`, which exists on macOS and Linux only; on iOS, tvOS,
// watchOS and visionOS these tests are left out and the rest of the suite runs.
#if os(Linux) || os(macOS)
    import AppSettings
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The settings set of the test host (Tests/AppSettingsTestHost): the same stored names under the
    /// key postfix the host is given, so that this process and the host read each other's sets.
    /// The host writes whole triples: counter n, label "v<n>", values [n, n, n].
    class ProcessTripleSettings: AppSettingsObject, @unchecked Sendable {
        @Setting var counter = 0
        @Setting var label = ""
        @Setting var values: [Int] = []

        override var userDefaultsKeyPostfix: String { "Host" }

        func setTriple(_ value: Int) {
            counter = value
            label = "v\(value)"
            values = [value, value, value]
        }

        var isWholeTriple: Bool {
            label == "v\(counter)" && values == [counter, counter, counter]
        }
    }

    /// The same settings under the postfix "Other": a second set in the same suite.
    final class OtherProcessTripleSettings: ProcessTripleSettings, @unchecked Sendable {
        override var userDefaultsKeyPostfix: String { "Other" }
    }

    /// Real second processes: what one process synchronizes, another reads; several writers of one
    /// suite lose nothing; a writer killed with SIGKILL leaves a whole, current state.
    ///
    /// Not serialized: every test has its own suite, and the host processes only touch that suite.
    @Suite("Processes")
    struct ProcessTests {
        @Test func sharedReadFromItsOwnInitializationStopsWithAMessage() throws {
            let finished = try TestHost.run(["shared-in-init", "-", "SelfReferencing"])
            #expect(finished.status != 0)
            #expect(!finished.output.contains("not stopped"))
            #expect(finished.errors.contains("SelfReferencingSettings.shared was read while"))
        }

        @Test("a second process reads what this one synchronized")
        func hostReadsWhatThisProcessSynchronized() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                settings.setTriple(17)
                try settings.synchronizeToUserDefaults()

                let result = try TestHost.run(["read", suite, "Host"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
                )
                let stored = try #require(json["settings"] as? [String: Any])
                #expect(stored["counter"] as? Int == 17)
                #expect(stored["label"] as? String == "v17")
                #expect(stored["values"] as? [Int] == [17, 17, 17])
                #expect(json["lastLoadError"] is NSNull)
                #expect(json["domain"] as? String == "has-key")
            }
        }

        #if os(Linux)
            // corelibs names the domain of `UserDefaults.standard` after the process when there is
            // no bundle identifier, as in every command-line tool; the library's files follow
            // `XDG_CONFIG_HOME`, which the host gets pointed at a scratch directory.
            @Test("a command-line tool's UserDefaults.standard set persists: a second process reads it, no warning")
            func standardSetPersistsAcrossProcesses() throws {
                let configuration = FileManager.default.temporaryDirectory
                    .appendingPathComponent("AppSettingsStandard-\(UUID().uuidString)", isDirectory: true)
                defer { try? FileManager.default.removeItem(at: configuration) }
                let environment = ["XDG_CONFIG_HOME": configuration.path]

                let write = try TestHost.run(["write", "-", "Host", "42"], environment: environment)
                try #require(write.status == 0, "host failed: \(write.errors)")
                #expect(write.errors.isEmpty)
                let read = try TestHost.run(["read", "-", "Host"], environment: environment)
                try #require(read.status == 0, "host failed: \(read.errors)")
                #expect(read.errors.isEmpty, "a normal launch logs nothing")
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any]
                )
                let stored = try #require(json["settings"] as? [String: Any])
                #expect(stored["counter"] as? Int == 42)
                #expect(json["domain"] as? String == "has-key")
                let domainFile = configuration.appendingPathComponent("AppSettingsTestHost.plist")
                #expect(json["domainFile"] as? String == domainFile.path)
                #expect(FileManager.default.fileExists(atPath: domainFile.path))
            }
        #endif

        @Test("this process sees what a second process synchronized after resetToUserDefaults()")
        func thisProcessSeesWhatTheHostSynchronized() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                settings.setTriple(1)
                try settings.synchronizeToUserDefaults()

                let result = try TestHost.run(["write", suite, "Host", "42"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                #expect(settings.counter == 1)
                try settings.resetToUserDefaults()
                #expect(settings.counter == 42)
                #expect(settings.label == "v42")
                #expect(settings.values == [42, 42, 42])
            }
        }

        @Test("two processes synchronizing different sets into one suite at once lose nothing")
        func concurrentWritersOfDifferentSetsLoseNothing() throws {
            try withProcessSuite { suite, userDefaults in
                let rounds = 20
                let writers = try ["Host", "Other"].map { postfix in
                    try TestHost.start(["write-many", suite, postfix, "\(rounds)"])
                }
                for writer in writers {
                    writer.process.waitUntilExit()
                    #expect(writer.process.terminationStatus == 0, "writer failed: \(writer.errors())")
                }
                let first = ProcessTripleSettings(userDefaults: userDefaults)
                let second = OtherProcessTripleSettings(userDefaults: userDefaults)
                try first.resetToUserDefaults()
                try second.resetToUserDefaults()
                #expect(first.counter == rounds && first.isWholeTriple)
                #expect(second.counter == rounds && second.isWholeTriple)
            }
        }

        @Test("a process killed while synchronizing leaves a whole state, at least the last synchronized one")
        func killedWriterLeavesTheLastSynchronizedState() throws {
            try withProcessSuite { suite, userDefaults in
                let loop = try TestHost.start(["sync-loop", suite, "Host"])
                defer { if loop.process.isRunning { kill(loop.process.processIdentifier, SIGKILL) } }
                try loop.waitForFirstLine()
                // The loop does nothing but synchronize, so the kill lands in or between syncs.
                let lastSynchronized = try loop.killAndLastCounter(within: 50_000)

                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                try settings.resetToUserDefaults()
                #expect(settings.lastLoadError == nil)
                #expect(settings.isWholeTriple, "torn state: \(settings)")
                #expect(settings.counter >= lastSynchronized)
            }
        }
    }

    /// Several writers of one set in different processes (issue 11): merging, conflicts, and the
    /// notice a live object gets when another process stores its set.
    @Suite("Processes writing one set")
    struct SharedSetProcessTests {
        @Test("two processes changing different settings of one set: both changes survive")
        func differentSettingsInTwoProcessesBothSurvive() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                settings.label = "mine"
                let result = try TestHost.run(["set", suite, "Host", "counter", "5"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                try settings.synchronizeToUserDefaults()
                #expect(settings.counter == 5, "adopted from the other process")
                let fields = try TestHost.run(["fields", suite, "Host"])
                #expect(fields.output == "counter=5 label=mine values=\n")
            }
        }

        @Test("the same setting changed in two processes: the later synchronization wins and reports it")
        func sameSettingInTwoProcessesLaterWins() async throws {
            try await withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                var events = settings.changes.makeAsyncIterator()
                settings.counter = 1
                let result = try TestHost.run(["set", suite, "Host", "counter", "7"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                try settings.synchronizeToUserDefaults()
                #expect(await events.next() == .settingsChanged(["counter"]))
                var event = await events.next()
                if event == .storedSettingsChanged { event = await events.next() }  // the notice may come first
                #expect(event == .mergeConflicts(["counter"]))
                let fields = try TestHost.run(["fields", suite, "Host"])
                #expect(fields.output.hasPrefix("counter=1 "))
            }
        }

        @Test("a writer killed while merging loses nothing another writer synchronized")
        func killedMergingWriterLosesNothing() throws {
            try withProcessSuite { suite, userDefaults in
                let loop = try TestHost.start(["count-loop", suite, "Host"])
                defer { if loop.process.isRunning { kill(loop.process.processIdentifier, SIGKILL) } }
                try loop.waitForFirstLine()
                // This process changes other settings while the loop merges its counter in; each
                // synchronization here makes the loop's next one merge, so the kill, a few
                // milliseconds after the last, likely lands in a merge.
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                for round in 1...20 {
                    settings.label = "survivor \(round)"
                    settings.values = [round]
                    try settings.synchronizeToUserDefaults()
                }
                let lastSynchronized = try loop.killAndLastCounter(within: 5_000)

                let loaded = ProcessTripleSettings(userDefaults: userDefaults)
                try loaded.resetToUserDefaults()
                #expect(loaded.lastLoadError == nil)
                #expect(loaded.label == "survivor 20" && loaded.values == [20])
                #expect(loaded.counter >= lastSynchronized)
            }
        }

        @Test("a live object is told when another process stores its set, and keeps its values")
        func liveObjectIsToldOfAnotherProcess() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                let told = NotificationRecorder(settings, name: AppSettingsObject.storedSettingsDidChangeNotification)
                let result = try TestHost.run(["set", suite, "Host", "counter", "3"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                #expect(waitUntil { !told.names.values.isEmpty }, "not told within the deadline")
                #expect(settings.counter == 0, "keeps its values")
                try settings.resetToUserDefaults()
                #expect(settings.counter == 3)
            }
        }

        @Test("reloadsWhenStoredSettingsChange: a clean object reloads, one with unsaved changes keeps them")
        func reloadsWhenCleanOnly() throws {
            try withProcessSuite { suite, userDefaults in
                let clean = ProcessTripleSettings(userDefaults: userDefaults)
                clean.reloadsWhenStoredSettingsChange = true
                let dirty = ProcessTripleSettings(userDefaults: UserDefaults(suiteName: suite)!)
                dirty.reloadsWhenStoredSettingsChange = true
                dirty.label = "unsaved"
                let cleanTold = NotificationRecorder(clean, name: AppSettingsObject.storedSettingsDidChangeNotification)
                let dirtyTold = NotificationRecorder(dirty, name: AppSettingsObject.storedSettingsDidChangeNotification)
                let result = try TestHost.run(["set", suite, "Host", "counter", "4"])
                try #require(result.status == 0, "host failed: \(result.errors)")
                #expect(waitUntil { !cleanTold.names.values.isEmpty && !dirtyTold.names.values.isEmpty })
                #expect(clean.counter == 4 && !clean.hasUnsavedChanges)
                #expect(dirty.counter == 0 && dirty.label == "unsaved")
            }
        }

        @Test("another process's live object is told of this process's synchronization, and reloads if asked")
        func anotherProcessIsTold() throws {
            try withProcessSuite { suite, userDefaults in
                for reload in [false, true] {
                    let watcher = try TestHost.start(["watch", suite, "Host"] + (reload ? ["reload"] : []))
                    defer { kill(watcher.process.processIdentifier, SIGKILL) }
                    #expect(waitUntil { watcher.output().hasPrefix("ready") }, "\(watcher.errors())")
                    let settings = ProcessTripleSettings(userDefaults: userDefaults)
                    settings.counter = reload ? 12 : 11
                    try settings.synchronizeToUserDefaults()
                    #expect(waitUntil { watcher.output().contains("told") }, "\(watcher.errors())")
                    let expected = reload ? "told counter=12 unsaved=false" : "told counter=0 unsaved=false"
                    #expect(watcher.output().contains(expected), "\(watcher.output())")
                    try settings.removeFromUserDefaults()
                }
            }
        }
    }

    // MARK: - Helpers

    /// Waits until `condition` holds or a generous deadline passes (it bounds the wait; how soon
    /// is not asserted); returns whether it held.
    /// Runs `body` with a fresh, uniquely named suite, and removes the suite's domain, its file and
    /// the library's files for it afterwards.
    func withProcessSuite(_ body: (String, UserDefaults) throws -> Void) throws {
        let suite = "AppSettingsProcessTests-" + UUID().uuidString
        defer { TemporarySuite.remove(suiteNamed: suite) }
        let userDefaults = try #require(UserDefaults(suiteName: suite))
        try body(suite, userDefaults)
    }

    private func withProcessSuite(_ body: (String, UserDefaults) async throws -> Void) async throws {
        let suite = "AppSettingsProcessTests-" + UUID().uuidString
        defer { TemporarySuite.remove(suiteNamed: suite) }
        let userDefaults = try #require(UserDefaults(suiteName: suite))
        try await body(suite, userDefaults)
    }

    /// The AppSettingsTestHost executable, built by `swift test` next to the test bundle.
    enum TestHost {
        struct Finished {
            var status: Int32
            var output: String
            var errors: String
        }

        /// A running host whose standard output and error go to files that can be read at any time.
        final class Running {
            let process = Process()
            let outputURL: URL
            let errorURL: URL

            init(outputURL: URL, errorURL: URL) {
                self.outputURL = outputURL
                self.errorURL = errorURL
            }

            func output() -> String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

            /// Waits (bounded by a generous deadline) until a loop printed its first line.
            func waitForFirstLine() throws {
                let deadline = Date().addingTimeInterval(20)
                while output().isEmpty, process.isRunning, Date() < deadline { usleep(2_000) }
                try #require(!output().isEmpty, "the loop printed nothing: \(errors())")
            }

            /// Kills a loop with SIGKILL after `delay` microseconds at most; returns the last
            /// counter it printed (one it had synchronized).
            func killAndLastCounter(within delay: UInt32) throws -> Int {
                usleep(UInt32.random(in: 0..<delay))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return try #require(
                    output().split(separator: "\n").last.flatMap { Int($0) }, "no counter in \(output())")
            }
            func errors() -> String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

            deinit {
                try? FileManager.default.removeItem(at: outputURL)
                try? FileManager.default.removeItem(at: errorURL)
            }
        }

        static let executableURL = BuiltExecutable.url(named: "AppSettingsTestHost")

        /// Starts the host; `environment` is added to this process's environment.
        static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Running {
            let executable = try #require(executableURL, "AppSettingsTestHost not found next to the test binary")
            let base = FileManager.default.temporaryDirectory.appendingPathComponent(
                "AppSettingsTestHost-\(UUID().uuidString)")
            let running = Running(
                outputURL: base.appendingPathExtension("out"), errorURL: base.appendingPathExtension("err"))
            _ = FileManager.default.createFile(atPath: running.outputURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: running.errorURL.path, contents: nil)
            running.process.executableURL = executable
            running.process.arguments = arguments
            if !environment.isEmpty {
                running.process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            running.process.standardOutput = try FileHandle(forWritingTo: running.outputURL)
            running.process.standardError = try FileHandle(forWritingTo: running.errorURL)
            try running.process.run()
            return running
        }

        static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Finished {
            let running = try start(arguments, environment: environment)
            running.process.waitUntilExit()
            return Finished(
                status: running.process.terminationStatus, output: running.output(), errors: running.errors())
        }
    }
#endif
