import Foundation
import Observation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A set with overrides, in-process: the sources are given to each object through
/// `OverrideSources.current`, so tests run in parallel without touching the process's own.
final class OverriddenSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
    @Setting var volume: Int8 = 3
    @Setting var theme = Theme.light
    @Setting var name = "none"
    @Setting var audio = AudioSettings()
    @Setting var constBuild = 0
    var plain = 0

    /// Reads `name` through a computed property.
    var greeting: String { "hello \(name)" }
    /// Reads `theme`; used by one test only, so that its first `source(of:)` searches.
    var themeName: String { theme.rawValue }

    override var userDefaultsKeyPostfix: String { "OverriddenSettings" }
}

/// A setting whose `validate:` posts `UserDefaults.didChangeNotification`, as a `UserDefaults`
/// write does on Apple platforms.
final class PostingSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(validate: { value in
        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
        return value
    })
    var level = 0

    override var userDefaultsKeyPostfix: String { "OverriddenSettings" }
}

/// Codable with numbers, for property-list text whose numbers arrive as text.
private struct Size: Codable, Equatable {
    var width: Double
    var height: Int
}

extension Size: SettingValue {}

@Suite("Overrides", .capturedLibraryLog)
struct OverrideTests {
    let suite = TemporarySuite.forSettings()

    /// A new object whose overrides come from these sources; `managed` is the entry of its set in
    /// the managed app configuration (Apple's, read here from the test's suite).
    private func make(
        arguments: [String] = [],
        environment: [String: String] = [:],
        managed: [String: Any]? = nil
    ) -> OverriddenSettings {
        setManaged(managed)
        return OverrideSources.$current.withValue(sources(arguments: arguments, environment: environment)) {
            OverriddenSettings(userDefaults: suite.userDefaults)
        }
    }

    private func sources(arguments: [String] = [], environment: [String: String] = [:]) -> OverrideSources {
        OverrideSources(
            arguments: ["test"] + arguments, environment: environment,
            managed: .managedAppConfiguration(suite.userDefaults))
    }

    private func setManaged(_ managed: [String: Any]?) {
        if let managed {
            suite.userDefaults.set(
                ["AppSettings.OverriddenSettings": managed],
                forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        } else {
            suite.userDefaults.removeObject(forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        }
    }

    /// A new object of the same set without overrides: what is stored.
    private func storedCopy() -> OverriddenSettings {
        OverrideSources.$current.withValue(sources()) { OverriddenSettings(userDefaults: suite.another()) }
    }

    /// Records whether an Observation tracking of `settings.name` ends.
    private func observingName(of settings: OverriddenSettings) -> Recorder<Bool> {
        let fired = Recorder<Bool>()
        withObservationTracking {
            _ = settings.name
        } onChange: {
            fired.record(true)
        }
        return fired
    }

    // MARK: Names and parsing

    @Test("environment names: words split where a lowercase letter meets an uppercase one, joined with _")
    func environmentNames() {
        #expect(
            SettingsKey(postfix: "MyAppsSettings").environmentName(path: "soundLevel")
                == "MY_APPS_SETTINGS_SOUND_LEVEL")
        #expect(
            SettingsKey(postfix: "ExampleSettings").environmentName(path: "audio.outputDevice")
                == "EXAMPLE_SETTINGS_AUDIO_OUTPUT_DEVICE")
        #expect(
            SettingsKey(postfix: "com.example.Settings").environmentName(path: "level2")
                == "COM_EXAMPLE_SETTINGS_LEVEL2")
        #expect(SettingsKey(postfix: "URLCache").environmentName(path: "maxSize") == "URLCACHE_MAX_SIZE")
    }

    @Test("launch arguments pair as the argument domain pairs them: -key value, the value whatever it is")
    func argumentPairs() {
        let pairs = OverrideSources.pairs(in: ["show", "-A.x", "1", "-A.y", "-3", "lone", "-A.z"][...])
        #expect(pairs == ["A.x": "1", "A.y": "-3"])
    }

    @Test("text is parsed by the declared type")
    func parsingByType() throws {
        func text(_ string: String) -> _StoredValue { .string(string) }
        for (string, expected) in [
            ("YES", true), ("no", false), ("true", true), ("FALSE", false), ("1", true), ("0", false),
        ] {
            #expect(try Bool._overrideValue(from: text(string)) == expected, "\(string)")
        }
        #expect(throws: _StoredValueMismatch.self) { try Bool._overrideValue(from: text("maybe")) }
        #expect(try Int._overrideValue(from: text(" -42 ")) == -42)
        #expect(try UInt64._overrideValue(from: text("18446744073709551615")) == .max)
        let tooLarge = #expect(throws: _StoredValueMismatch.self) { try Int8._overrideValue(from: text("999")) }
        #expect(tooLarge?.found.contains("out of the range of Int8") == true)
        #expect(throws: _StoredValueMismatch.self) { try Int._overrideValue(from: text("3.5")) }
        #expect(try Float._overrideValue(from: text("0.25")) == 0.25)
        #expect(throws: _StoredValueMismatch.self) { try Float._overrideValue(from: text("1e50")) }
        #expect(try Double._overrideValue(from: text("-1.5e3")) == -1500)
        #expect(try String._overrideValue(from: text("(a, b)")) == "(a, b)")
        #expect(
            try Date._overrideValue(from: text("2026-11-30T10:00:00Z"))
                == Date(timeIntervalSince1970: 1_796_032_800))
        #expect(
            try Date._overrideValue(from: text("2026-11-30T10:00:00.500+01:00"))
                == Date(timeIntervalSince1970: 1_796_029_200.5))
        #expect(try Date._overrideValue(from: text("2026-11-30")) == Date(timeIntervalSince1970: 1_795_996_800))
        // A launch argument's date is read as update(fromJSON:) reads one: what one refuses (a time
        // without a zone, a time without seconds, a lowercase form) the other refuses too, where
        // ISO8601DateFormatter took the date alone and dropped the time.
        for refused in ["2026-11-30T10:00:00", "2026-11-30T10:00Z", "2026-11-30t10:00:00z", "2026-11-30 10:00:00Z"] {
            #expect(throws: (any Error).self, "\(refused)") { try Date._overrideValue(from: text(refused)) }
            #expect(JSONForm.date(fromText: refused) == nil, "\(refused)")
        }
        #expect(JSONForm.date(fromText: "2026-11-30") == Date(timeIntervalSince1970: 1_795_996_800))
        #expect(try URL._overrideValue(from: text("myapp://x/y?z=1")).absoluteString == "myapp://x/y?z=1")
        #expect(
            try UUID._overrideValue(from: text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
                == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try Data._overrideValue(from: text("AQID")) == Data([1, 2, 3]))
        #expect(try Data._overrideValue(from: text("<0102 03>")) == Data([1, 2, 3]))
        #expect(try Theme._overrideValue(from: text("dark")) == .dark)
        #expect(try Speed._overrideValue(from: text("2")) == .fast)
        #expect(throws: _StoredValueMismatch.self) { try Theme._overrideValue(from: text("purple")) }
        #expect(try [String]._overrideValue(from: text("(a, \"b c\")")) == ["a", "b c"])
        #expect(try [Int]._overrideValue(from: text("(1, 2)")) == [1, 2])
        #expect(try [Int]._overrideValue(from: text("[1, 2]")) == [1, 2])
        #expect(try Set<Int>._overrideValue(from: text("(3, 3, 4)")) == [3, 4])
        #expect(try [String: Int]._overrideValue(from: text("{a = 1; b = 2;}")) == ["a": 1, "b": 2])
        #expect(try [String: Int]._overrideValue(from: text(#"{"a": 1}"#)) == ["a": 1])
        #expect(try [[Int]]._overrideValue(from: text("((1, 2), (3))")) == [[1, 2], [3]])
        #expect(throws: _StoredValueMismatch.self) { try [Int]._overrideValue(from: text("(1, x)")) }
        #expect(throws: _StoredValueMismatch.self) { try [Int]._overrideValue(from: text("1")) }
        #expect(try Size._overrideValue(from: text("{width = 2.5; height = 3;}")) == Size(width: 2.5, height: 3))
        #expect(try Size._overrideValue(from: text(#"{"width": 2.5, "height": 3}"#)) == Size(width: 2.5, height: 3))
        #expect(try Int?._overrideValue(from: text("5")) == 5)
        #expect(try Int?._overrideValue(from: .null) == nil)
        // Managed values arrive typed (property lists, JSON): taken as they are.
        #expect(try Float._overrideValue(from: .double(0.5)) == 0.5)
        #expect(throws: _StoredValueMismatch.self) { try Int8._overrideValue(from: .integer(999)) }
    }

    // MARK: Precedence and sources

    @Test("managed, then launch argument, then environment, then stored, then developer default")
    func precedence() throws {
        let fresh = make()
        #expect(fresh.name == "none" && fresh.source(of: \.name) == .developerDefault)

        fresh.name = "stored"
        #expect(fresh.source(of: \.name) == .stored, "assigned: the user's value")
        try fresh.synchronizeToUserDefaults()
        #expect(make().source(of: \.name) == .stored)

        let environment = ["OVERRIDDEN_SETTINGS_NAME": "environment"]
        let arguments = ["-OverriddenSettings.name", "argument"]
        let fromEnvironment = make(environment: environment)
        #expect(fromEnvironment.name == "environment" && fromEnvironment.source(of: \.name) == .environment)
        let fromArgument = make(arguments: arguments, environment: environment)
        #expect(fromArgument.name == "argument" && fromArgument.source(of: \.name) == .launchArgument)
        let fromManaged = make(arguments: arguments, environment: environment, managed: ["name": "managed"])
        #expect(fromManaged.name == "managed" && fromManaged.source(of: \.name) == .managed)
        #expect(fromManaged.source(of: \.theme) == .stored)
        #expect(fromManaged.ignoredOverrides.isEmpty)
    }

    @Test("source(of:) follows nested settings and computed properties")
    func sourceOfKeyPaths() {
        let settings = make(
            arguments: ["-OverriddenSettings.audio.volume", "8"], environment: ["OVERRIDDEN_SETTINGS_NAME": "x"])
        #expect(settings.audio.volume == 8)
        #expect(settings.source(of: \.audio.volume) == .launchArgument)
        #expect(settings.source(of: \.audio.muted) == .developerDefault)
        #expect(settings.audio.source(of: \.volume) == .launchArgument)
        #expect(settings.source(of: \.greeting) == .environment, "reads name")
        #expect(settings.source(of: \.plain) == .developerDefault, "reads no setting")
        #expect(settings.source(of: \.soundLevel) == .developerDefault)
    }

    @Test("source(of:) inside an Observation tracking tracks the setting it names, nothing else")
    func sourceOfInsideATracking() {
        let settings = make(managed: ["theme": "dark"])
        let fired = Recorder<Bool>()
        withObservationTracking {
            #expect(settings.source(of: \.themeName) == .managed)
        } onChange: {
            fired.record(true)
        }
        #expect(fired.values.isEmpty, "the search for the setting is not the caller's to see")
        setManaged(["theme": "system"])
        postUserDefaultsChange()
        #expect(!fired.values.isEmpty)
        #expect(settings.theme == .system)
    }

    @Test("validate: runs on an override")
    func validateRunsOnOverrides() {
        let settings = make(arguments: ["-OverriddenSettings.soundLevel", "5"])
        #expect(settings.soundLevel == 1)
        #expect(settings.source(of: \.soundLevel) == .launchArgument)
    }

    @Test("an override that does not parse or fit is ignored and listed; the next source applies")
    func ignoredOverrides() {
        let settings = make(
            arguments: [
                "-OverriddenSettings.volume", "999", "-OverriddenSettings.soundLevel", "loud",
                "-OverriddenSettings.nosuch", "1", "-OverriddenSettings.audio", "{volume = 2;}",
            ],
            environment: ["OVERRIDDEN_SETTINGS_VOLUME": "4"],
            managed: ["theme": "purple"])
        #expect(settings.volume == 4 && settings.source(of: \.volume) == .environment)
        #expect(settings.soundLevel == 0.7 && settings.source(of: \.soundLevel) == .developerDefault)
        #expect(settings.theme == .light)
        let ignored = settings.ignoredOverrides
        #expect(Set(ignored.map(\.setting)) == ["volume", "soundLevel", "nosuch", "audio", "theme"])
        let volume = ignored.first { $0.setting == "volume" }
        #expect(volume?.source == .launchArgument)
        #expect(volume?.origin == "-OverriddenSettings.volume")
        #expect(volume?.value == "999")
        #expect(volume?.reason.contains("out of the range of Int8") == true)
        #expect(ignored.first { $0.setting == "theme" }?.source == .managed)
        #expect(settings.audio.ignoredOverrides == ignored, "a nested object lists its parent's")
    }

    @Test("a managed configuration that is not a dictionary is ignored and listed")
    func unreadableManagedConfiguration() {
        suite.userDefaults.set("nonsense", forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        let settings = OverrideSources.$current.withValue(sources()) {
            OverriddenSettings(userDefaults: suite.userDefaults)
        }
        #expect(settings.ignoredOverrides.count == 1)
        #expect(settings.ignoredOverrides.first?.setting == "")
        #expect(settings.ignoredOverrides.first?.source == .managed)
    }

    // MARK: Never saved

    @Test("an override is never saved, and a set with overrides has no unsaved changes")
    func neverSaved() throws {
        let settings = make(arguments: [
            "-OverriddenSettings.name", "argument", "-OverriddenSettings.audio.volume", "9",
        ])
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.dictionaryRepresentation()["name"] as? String == "none", "the user's values")
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        let stored = storedCopy()
        #expect(stored.theme == .dark)
        #expect(stored.name == "none")
        #expect(stored.audio.volume == 5)
        #expect(settings.name == "argument", "still overridden after the synchronization")
    }

    @Test("an assignment to an overridden setting changes the user's value, saved; readers keep the override")
    func assignmentWhileOverridden() throws {
        let settings = make(arguments: [
            "-OverriddenSettings.name", "argument", "-OverriddenSettings.audio.volume", "9",
        ])
        let notifications = NotificationRecorder(settings)
        let fired = observingName(of: settings)
        settings.name = "assigned"
        settings.audio.volume = 2
        #expect(settings.name == "argument")
        #expect(settings.audio.volume == 9)
        #expect(settings.source(of: \.name) == .launchArgument)
        #expect(settings.hasUnsavedChanges)
        #expect(fired.values.isEmpty, "what a reader sees did not change")
        #expect(notifications.names.values.isEmpty, "nothing a reader sees changed, nested setting included")
        try settings.synchronizeToUserDefaults()
        let stored = storedCopy()
        #expect(stored.name == "assigned")
        #expect(stored.audio.volume == 2)
        // A reload keeps the override over the reloaded user's value.
        try settings.resetToUserDefaults()
        #expect(settings.name == "argument")
    }

    @Test("a copy has the same overrides")
    func copies() throws {
        let settings = make(arguments: ["-OverriddenSettings.name", "argument"])
        let copy = try #require(settings.copy() as? OverriddenSettings)
        #expect(copy.name == "argument" && copy.source(of: \.name) == .launchArgument)
    }

    @Test("a nested settings object assigned later takes the overrides of its place")
    func replacedNestedObject() {
        let settings = make(arguments: ["-OverriddenSettings.audio.volume", "8"])
        settings.audio = AudioSettings(userDefaults: suite.userDefaults)
        #expect(settings.audio.volume == 8)
        #expect(settings.source(of: \.audio.volume) == .launchArgument)
    }

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

/// Posts `UserDefaults.didChangeNotification`, as Apple's `UserDefaults` does for a change, and
/// waits for the refresh it starts on the watcher's queue.
private func postUserDefaultsChange() {
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
    ManagedConfigurationWatcher.waitForPendingRefreshes()
}

/// `source(of:)` of a setting whose stored value could not be read: its developer default.
@Suite("Setting sources", .capturedLibraryLog)
struct SettingSourceTests {
    /// `MySettings`' key, with `theme` stored as text no `Theme` has.
    final class ThemeAsText: AppSettingsObject, @unchecked Sendable {
        @Setting var theme = "purple"
        @Setting var dontDimScreen = true
        override var userDefaultsKeyPostfix: String { "MyAppsSettings" }
    }

    @Test func aStoredValueThatCouldNotBeReadIsTheDeveloperDefault() throws {
        let name = "SettingSourceTests-" + UUID().uuidString
        defer { InMemoryStorage.remove(named: name) }
        try ThemeAsText(store: .inMemory(name)).synchronizeToUserDefaults(forcing: true)
        let settings = MySettings(store: .inMemory(name))
        #expect(settings.lastLoadError?.unusedStoredSettings == ["theme"])
        #expect(settings.theme == .light)
        #expect(settings.source(of: \.theme) == .developerDefault)
        #expect(settings.dontDimScreen)
        #expect(settings.source(of: \.dontDimScreen) == .stored)
        #expect(settings.source(of: \.soundLevel) == .developerDefault)
    }
}
