// Real second processes need `Process`, which exists on macOS and Linux only; on iOS, tvOS,
// watchOS and visionOS these tests are left out and the rest of the suite runs.
#if os(Linux) || os(macOS)
    import AppSettings
    import Foundation
    import Testing

    /// Several writers of one set in different processes (issue 11): merging, conflicts, and the
    /// notice a live object gets when another process stores its set.
    @Suite("Processes writing one set", .capturedLibraryLog)
    struct SharedSetProcessTests {
        @Test("two processes changing different settings of one set: both changes survive")
        func differentSettingsInTwoProcessesBothSurvive() throws {
            try withProcessSuite { suite, userDefaults in
                let settings = ProcessTripleSettings(userDefaults: userDefaults)
                settings.label = "mine"
                try TestHost.run(["set", suite, "Host", "counter", "5"]).requireSuccess()
                try settings.synchronizeToUserDefaults()
                #expect(settings.counter == 5, "adopted from the other process")
                let fields = try TestHost.run(["fields", suite, "Host"])
                #expect(fields.output == "counter=5 label=mine values=\n")
            }
        }

        @Test("the same setting changed in two processes: the later synchronization wins and reports it")
        func sameSettingInTwoProcessesLaterWins() async throws {
            let temporary = TemporarySuite()
            defer { withExtendedLifetime(temporary) {} }
            let (suite, userDefaults) = (temporary.name, temporary.userDefaults)
            let settings = ProcessTripleSettings(userDefaults: userDefaults)
            var events = settings.changes.makeAsyncIterator()
            settings.counter = 1
            try TestHost.run(["set", suite, "Host", "counter", "7"]).requireSuccess()
            try settings.synchronizeToUserDefaults()
            #expect(await events.next() == .settingsChanged(["counter"]))
            var event = await events.next()
            // The store watcher's notices of the other process's write may come first, one per
            // change of the domain file it saw (under load it can see the write more than once).
            while event == .storedSettingsChanged { event = await events.next() }
            #expect(event == .mergeConflicts(["counter"]))
            let fields = try TestHost.run(["fields", suite, "Host"])
            #expect(fields.output == "counter=1 label= values=\n", "the later synchronization's value, stored")
        }

        @Test("a writer killed while merging loses nothing another writer synchronized")
        func killedMergingWriterLosesNothing() throws {
            try withProcessSuite { suite, userDefaults in
                let loop = try TestHost.startLoop(["count-loop", suite, "Host"])
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
                try TestHost.run(["set", suite, "Host", "counter", "3"]).requireSuccess()
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
                try TestHost.run(["set", suite, "Host", "counter", "4"]).requireSuccess()
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
                    defer { watcher.kill() }
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
#endif
