// Real second processes need `Process`, which exists on macOS and Linux only; on iOS, tvOS,
// watchOS and visionOS these tests are left out and the rest of the suite runs.
#if os(Linux) || os(macOS)
    import AppSettings
    import Foundation
    import Testing

    /// Real second processes: what one process synchronizes, another reads; several writers of one
    /// suite lose nothing; a writer killed with SIGKILL leaves a whole, current state.
    ///
    /// Not serialized: every test has its own suite, and the host processes only touch that suite.
    @Suite("Processes", .capturedLibraryLog)
    struct ProcessTests {
        @Test("the test host is found from the image of the test code alone, as under swiftpm-testing-helper")
        func theHostIsFoundFromTheTestBundle() throws {
            // On macOS the process is SwiftPM's testing helper, outside the build directory: what
            // the process's executable and argv[0] give leads nowhere there.
            let helper = URL(fileURLWithPath: "/usr/libexec/swift/pm/swiftpm-testing-helper")
            #expect(BuiltExecutable.url(named: "AppSettingsTestHost", searchingUpFrom: [helper]) == nil)
            let image = try #require(BuiltExecutable.imageOfThisCode)
            #expect(BuiltExecutable.url(named: "AppSettingsTestHost", searchingUpFrom: [helper, image]) != nil)
            #expect(BuiltExecutable.candidates.first == image)
        }

        /// Not under ThreadSanitizer: a sanitized host that traps takes seconds to report, and once
        /// left corelibs' `Process.waitUntilExit()` waiting after it had gone. The plain test run
        /// (`swift test`, twice in `.ci/run`) covers it.
        @Test(.enabled(if: !isThreadSanitized, "a trapping sanitized child is slow and once hung the wait"))
        func sharedReadFromItsOwnInitializationStopsWithAMessage() throws {
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
                    let finished = writer.waitUntilExit()
                    #expect(finished.status == 0, "writer failed: \(finished.errors)")
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
                let loop = try TestHost.startLoop(["sync-loop", suite, "Host"])
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
#endif
