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

                let json = try TestHost.run(["read", suite, "Host"]).requireSuccess().jsonObject()
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
                let configuration = try ScratchDirectory("AppSettingsStandard")
                defer { withExtendedLifetime(configuration) {} }
                let environment = ["XDG_CONFIG_HOME": configuration.url.path]

                let write = try TestHost.run(["write", "-", "Host", "42"], environment: environment).requireSuccess()
                #expect(write.errors.isEmpty)
                let read = try TestHost.run(["read", "-", "Host"], environment: environment).requireSuccess()
                #expect(read.errors.isEmpty, "a normal launch logs nothing")
                let json = try read.jsonObject()
                let stored = try #require(json["settings"] as? [String: Any])
                #expect(stored["counter"] as? Int == 42)
                #expect(json["domain"] as? String == "has-key")
                let domainFile = configuration.url.appendingPathComponent("AppSettingsTestHost.plist")
                #expect(json["domainFile"] as? String == domainFile.path)
                #expect(FileManager.default.fileExists(atPath: domainFile.path))
            }

            /// Which of a set's files cannot be read, in `storeUnavailableUntilReadable`.
            enum UnreadableFiles: String, CaseIterable, CustomTestStringConvertible {
                case domainFile = "the domain's file (no recovery copy)"
                case domainFileAndRecoveryCopy = "the domain's file and the recovery copy"
                case recoveryCopy = "the recovery copy (the domain without the key)"
                var testDescription: String { rawValue }
            }

            // Root reads any file, whatever its mode: the host runs without the capabilities that
            // allow it (TestHost.runHonoringPermissions), as a process of this user that cannot
            // read a file of mode 000. It still owns the files, and makes them readable half-way.
            // The load keeps the developer defaults and says storeUnavailable, a save throws it and
            // writes nothing; once readable, the next save merges: the set, the change on top.
            @Test(
                "files that exist but cannot be read: storeUnavailable, no write; once readable, loaded under the change",
                arguments: UnreadableFiles.allCases)
            func storeUnavailableUntilReadable(_ unreadable: UnreadableFiles) throws {
                try withProcessSuite { suite, userDefaults in
                    let settings = ProcessTripleSettings(userDefaults: userDefaults)
                    settings.setTriple(5)
                    try settings.synchronizeToUserDefaults()
                    let domainFile = try #require(settings.settingsStore.domainFileURL)
                    let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                    var paths: [URL] = []
                    switch unreadable {
                    case .domainFile:
                        try FileManager.default.removeItem(at: copy)
                        paths = [domainFile]
                    case .domainFileAndRecoveryCopy:
                        paths = [domainFile, copy]
                    case .recoveryCopy:
                        userDefaults.removeObject(forKey: settings.userDefaultsKey)
                        #expect(userDefaults.synchronize())
                        paths = [copy]
                    }
                    for path in paths {
                        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path.path)
                    }
                    defer {
                        for path in paths {
                            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path.path)
                        }
                    }
                    let result = try TestHost.runHonoringPermissions(
                        ["unavailable", suite, "Host"] + paths.map(\.path)
                    ).requireSuccess()
                    let lines = result.output.split(separator: "\n").map(String.init)
                    try #require(lines.count == 5, "host printed: \(result.output) \(result.errors)")
                    #expect(lines[0] == "load storeUnavailable counter=0 label= values=", "\(result.errors)")
                    #expect(lines[2] == "save storeUnavailable unsaved=true", "\(result.errors)")
                    #expect(lines[1] == lines[3], "the failed save changed a file: \(lines[1]) -> \(lines[3])")
                    #expect(lines[4] == "then none counter=5 label=l9 values=5,5,5", "\(result.errors)")
                    #expect(result.errors.contains("cannot be read"), "the reason names the file: \(result.errors)")

                    try settings.resetToUserDefaults()
                    #expect([settings.counter, settings.values.count] == [5, 3] && settings.label == "l9")
                }
            }
        #endif

        @Test("this process sees what a second process synchronized after resetToUserDefaults()")
        func thisProcessSeesWhatTheHostSynchronized() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                settings.setTriple(1)
                try settings.synchronizeToUserDefaults()

                try TestHost.run(["write", suite, "Host", "42"]).requireSuccess()
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
