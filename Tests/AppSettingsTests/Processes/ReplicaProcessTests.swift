// Real second processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    import AppSettings
    import Foundation
    import Testing

    /// Another process's save of a set with shown settings (issue 46): it writes the Settings app's
    /// keys with the set, and this process never takes them for changes made in the Settings app.
    @Suite("Another process and the Settings app's keys", .capturedLibraryLog)
    struct ReplicaProcessTests {
        @Test func anotherProcesssSaveIsNoSettingsAppEdit() throws {
            let suite = TemporarySuite()
            let a = ShownReplicaSettings(userDefaults: suite.userDefaults)
            a.name = "fromA"
            a.retries = 9
            try TestHost.run(["shown-save", suite.name, "-", "fromB", "42"]).requireSuccess()
            try a.synchronizeToUserDefaults()
            #expect((a.name, a.retries, a.count) == ("fromA", 9, 42))
            let loaded = ShownReplicaSettings(userDefaults: suite.another())
            #expect((loaded.name, loaded.retries, loaded.count) == ("fromA", 9, 42))
            #expect(suite.storedObject(forKey: "Replicas.name") as? String == "fromA")
        }
    }
#endif
