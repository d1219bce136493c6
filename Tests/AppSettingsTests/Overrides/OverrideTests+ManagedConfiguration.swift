import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OverrideTests {
    // MARK: Managed configuration that changes

    @Test("managed configuration that changes while the app runs is applied again, and observers are told")
    func managedConfigurationChanges() throws {
        let settings = make(arguments: ["-OverriddenSettings.name", "argument"], managed: ["name": "first"])
        #expect(settings.name == "first")
        let notifications = NotificationRecorder(settings)
        let fired = observingName(of: settings)

        setManaged(["name": "second", "volume": 6])
        postUserDefaultsChange()
        #expect(settings.name == "second", "applied once the watcher's queue ran")
        #expect(settings.volume == 6 && settings.source(of: \.volume) == .managed)
        #expect(notifications.names.values.contains { $0.contains("name") })
        #expect(!fired.values.isEmpty)
        #expect(!settings.hasUnsavedChanges)

        setManaged(nil)
        postUserDefaultsChange()
        #expect(settings.name == "argument")
        #expect(settings.source(of: \.name) == .launchArgument)
        #expect(settings.volume == 3)
        #expect(settings.source(of: \.volume) == .developerDefault)
    }

    @Test("UserDefaults written from inside a refresh (as validate: may do) is handled later, without a deadlock")
    func notificationFromInsideARefresh() {
        setManaged(["level": 1])
        let settings = OverrideSources.$current.withValue(sources()) {
            PostingSettings(userDefaults: suite.userDefaults)
        }
        #expect(settings.level == 1)
        setManaged(["level": 2])
        // The refresh this post runs holds the object's synchronization lock while validate:
        // posts again; a refresh run right there would wait for that lock forever.
        postUserDefaultsChange()
        #expect(settings.level == 2)
        setManaged(["level": 3])
        postUserDefaultsChange()
        #expect(settings.level == 3)
    }

    @Test("threads reading, assigning and synchronizing while managed configuration changes")
    func concurrentOverrides() throws {
        let settings = make(arguments: ["-OverriddenSettings.audio.volume", "4"], managed: ["name": "m0"])
        let deadline = Date().addingTimeInterval(1)
        let problems = Protected<[String]>([])
        let lastAssigned = Protected("none")
        let threads = (0..<4).map { index in
            Thread {
                var count = 0
                while Date() < deadline {
                    count += 1
                    switch index {
                    case 0:
                        setManaged(count % 2 == 0 ? ["name": "m\(count)"] : nil)
                        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
                    case 1:
                        lastAssigned.withLock { last in
                            last = "user\(count)"
                            settings.name = last
                        }
                    case 2:
                        do { try settings.synchronizeToUserDefaults() } catch {
                            problems.withLock { $0.append("\(error)") }
                        }
                    default:
                        let name = settings.name
                        if !name.hasPrefix("m"), !name.hasPrefix("user"), name != "none" {
                            problems.withLock { $0.append("read \(name)") }
                        }
                        if settings.audio.volume != 4 || settings.source(of: \.audio.volume) != .launchArgument {
                            problems.withLock { $0.append("the argument's override was lost") }
                        }
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(problems.withLock { $0 } == [])
        setManaged(nil)
        postUserDefaultsChange()
        let last = lastAssigned.withLock { $0 }
        #expect(settings.name == last, "the user's last assignment, once the override is gone")
        #expect(settings.source(of: \.name) == .stored)
        try settings.synchronizeToUserDefaults()
        #expect(storedCopy().name == last)
        #expect(storedCopy().audio.volume == 5, "an override is never saved")
    }

    @Test("Linux form: the first configuration directory that has the set's JSON file wins; a revert reads it again")
    func configurationDirectories() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("AppSettingsXDG-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directories = ["a", "b", "c"].map { root.appendingPathComponent($0) }
        func write(_ json: String, in directory: URL) throws {
            let folder = directory.appendingPathComponent("AppSettings/domain")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(json.utf8).write(to: folder.appendingPathComponent("AppSettings.OverriddenSettings.json"))
        }
        try write(#"{"name": "b", "audio": {"muted": true}, "start": "2026-11-30T10:00:00Z"}"#, in: directories[1])
        try write(#"{"name": "c"}"#, in: directories[2])
        let source = ManagedConfigurationSource.configurationDirectories(directories.map(\.path))
        guard
            case .entries(let entries, let origin) = source.read(
                key: "AppSettings.OverriddenSettings", domain: "domain")
        else {
            Issue.record("no entries")
            return
        }
        #expect(entries["name"] == .string("b"))
        #expect(entries["audio"] == .dictionary(["muted": .bool(true)]))
        #expect(origin.hasSuffix("b/AppSettings/domain/AppSettings.OverriddenSettings.json"))
        #expect(
            ManagedConfigurationSource.configurationDirectories(environment: ["XDG_CONFIG_DIRS": "relative:/x:/y"]) == [
                "/x", "/y",
            ])
        #expect(ManagedConfigurationSource.configurationDirectories(environment: [:]) == ["/etc/xdg"])

        // The Linux store only (the model of Apple's: see IntegrationTests/AppleBranches/Package.swift).
        #if os(Linux) && !APPLE_STAND_INS
            // The domain of a suite is its name.
            func writeForSuite(_ json: String) throws {
                let folder = directories[0].appendingPathComponent("AppSettings/\(suite.name)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(json.utf8).write(to: folder.appendingPathComponent("AppSettings.OverriddenSettings.json"))
            }
            try writeForSuite(#"{"volume": 7}"#)
            let sources = OverrideSources(arguments: [], environment: [:], managed: source)
            let settings = OverrideSources.$current.withValue(sources) {
                OverriddenSettings(userDefaults: suite.userDefaults)
            }
            #expect(settings.volume == 7 && settings.source(of: \.volume) == .managed)
            try writeForSuite(#"{"volume": 8}"#)
            try settings.resetToUserDefaults()
            #expect(settings.volume == 8)
        #endif
    }
}
