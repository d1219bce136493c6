import Foundation
import Observation
import Testing

@testable import AppSettings

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
    func make(
        arguments: [String] = [],
        environment: [String: String] = [:],
        managed: [String: Any]? = nil
    ) -> OverriddenSettings {
        setManaged(managed)
        return OverrideSources.$current.withValue(sources(arguments: arguments, environment: environment)) {
            OverriddenSettings(userDefaults: suite.userDefaults)
        }
    }

    func sources(arguments: [String] = [], environment: [String: String] = [:]) -> OverrideSources {
        OverrideSources(
            arguments: ["test"] + arguments, environment: environment,
            managed: .managedAppConfiguration(suite.userDefaults))
    }

    func setManaged(_ managed: [String: Any]?) {
        if let managed {
            suite.userDefaults.set(
                ["AppSettings.OverriddenSettings": managed],
                forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        } else {
            suite.userDefaults.removeObject(forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        }
    }

    /// A new object of the same set without overrides: what is stored.
    func storedCopy() -> OverriddenSettings {
        OverrideSources.$current.withValue(sources()) { OverriddenSettings(userDefaults: suite.another()) }
    }

    /// Records whether an Observation tracking of `settings.name` ends.
    func observingName(of settings: OverriddenSettings) -> Recorder<Bool> {
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
        func text(_ string: String) -> StoredValue { .string(string) }
        for (string, expected) in [
            ("YES", true), ("no", false), ("true", true), ("FALSE", false), ("1", true), ("0", false),
        ] {
            #expect(try Bool.overrideValue(from: text(string)) == expected, "\(string)")
        }
        #expect(throws: StoredValueMismatch.self) { try Bool.overrideValue(from: text("maybe")) }
        #expect(try Int.overrideValue(from: text(" -42 ")) == -42)
        #expect(try UInt64.overrideValue(from: text("18446744073709551615")) == .max)
        let tooLarge = #expect(throws: StoredValueMismatch.self) { try Int8.overrideValue(from: text("999")) }
        #expect(tooLarge?.found.contains("out of the range of Int8") == true)
        #expect(throws: StoredValueMismatch.self) { try Int.overrideValue(from: text("3.5")) }
        #expect(try Float.overrideValue(from: text("0.25")) == 0.25)
        #expect(throws: StoredValueMismatch.self) { try Float.overrideValue(from: text("1e50")) }
        #expect(try Double.overrideValue(from: text("-1.5e3")) == -1500)
        #expect(try String.overrideValue(from: text("(a, b)")) == "(a, b)")
        #expect(
            try Date.overrideValue(from: text("2026-11-30T10:00:00Z"))
                == Date(timeIntervalSince1970: 1_796_032_800))
        #expect(
            try Date.overrideValue(from: text("2026-11-30T10:00:00.500+01:00"))
                == Date(timeIntervalSince1970: 1_796_029_200.5))
        // A launch argument's date is read as update(fromJSON:) reads one: what one refuses (a time
        // without a zone, a time without seconds, a lowercase form) the other refuses too, where
        // ISO8601DateFormatter took the date alone and dropped the time.
        // A date alone names no time zone: refused rather than taken as midnight UTC (issue 39).
        for refused in [
            "2026-11-30T10:00:00", "2026-11-30T10:00Z", "2026-11-30t10:00:00z", "2026-11-30 10:00:00Z", "2026-11-30",
            "2026-02-30T10:00:00Z", "2026-11-30T24:00:00Z",
        ] {
            #expect(throws: (any Error).self, "\(refused)") { try Date.overrideValue(from: text(refused)) }
            #expect(TextForms.date(fromText: refused) == nil, "\(refused)")
        }
        #expect(try URL.overrideValue(from: text("myapp://x/y?z=1")).absoluteString == "myapp://x/y?z=1")
        #expect(
            try UUID.overrideValue(from: text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
                == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try Data.overrideValue(from: text("AQID")) == Data([1, 2, 3]))
        #expect(try Data.overrideValue(from: text("<0102 03>")) == Data([1, 2, 3]))
        #expect(try Theme.overrideValue(from: text("dark")) == .dark)
        #expect(try Speed.overrideValue(from: text("2")) == .fast)
        #expect(throws: StoredValueMismatch.self) { try Theme.overrideValue(from: text("purple")) }
        #expect(try [String].overrideValue(from: text("(a, \"b c\")")) == ["a", "b c"])
        #expect(try [Int].overrideValue(from: text("(1, 2)")) == [1, 2])
        #expect(try [Int].overrideValue(from: text("[1, 2]")) == [1, 2])
        #expect(try Set<Int>.overrideValue(from: text("(3, 3, 4)")) == [3, 4])
        #expect(try [String: Int].overrideValue(from: text("{a = 1; b = 2;}")) == ["a": 1, "b": 2])
        #expect(try [String: Int].overrideValue(from: text(#"{"a": 1}"#)) == ["a": 1])
        #expect(try [[Int]].overrideValue(from: text("((1, 2), (3))")) == [[1, 2], [3]])
        #expect(throws: StoredValueMismatch.self) { try [Int].overrideValue(from: text("(1, x)")) }
        #expect(throws: StoredValueMismatch.self) { try [Int].overrideValue(from: text("1")) }
        #expect(try Size.overrideValue(from: text("{width = 2.5; height = 3;}")) == Size(width: 2.5, height: 3))
        #expect(try Size.overrideValue(from: text(#"{"width": 2.5, "height": 3}"#)) == Size(width: 2.5, height: 3))
        #expect(try Int?.overrideValue(from: text("5")) == 5)
        #expect(try Int?.overrideValue(from: .null) == nil)
        // Managed values arrive typed (property lists, JSON): taken as they are.
        #expect(try Float.overrideValue(from: .double(0.5)) == 0.5)
        #expect(throws: StoredValueMismatch.self) { try Int8.overrideValue(from: .integer(999)) }
    }
}

/// Posts `UserDefaults.didChangeNotification`, as Apple's `UserDefaults` does for a change, and
/// waits for the refresh it starts on the watcher's queue.
func postUserDefaultsChange() {
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: nil)
    ManagedConfigurationWatcher.waitForPendingRefreshes()
}
