@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

#if os(Linux)
    extension HostileMachineTests {
        // MARK: Names

        @Test(
            "suite names that leave the configuration directory or are cut short are refused before anything is written",
            arguments: ["../../escape-\(UUID().uuidString)", "/escape-\(UUID().uuidString)", "victim.conf\u{0}x", ".."]
        )
        func strangeSuiteNamesAreRefused(name: String) throws {
            let userDefaults = try #require(UserDefaults(suiteName: name))
            let settings = MySettings(userDefaults: userDefaults)
            guard case .invalidSuiteName(let refused, _)? = settings.lastLoadError else {
                Issue.record("the load did not refuse '\(name)': \(String(describing: settings.lastLoadError))")
                return
            }
            #expect(refused == name)
            settings.theme = .dark
            #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
            let configuration = ConfigurationDirectory.path
            let escaped = URL(fileURLWithPath: configuration).appendingPathComponent(name + ".plist").standardized
            #expect(!FileManager.default.fileExists(atPath: escaped.path))
            #expect(!FileManager.default.fileExists(atPath: configuration + "/victim.conf"))
            #expect(throws: AppSettingsError.self) { try AppSettingsStore.suite(name).remove() }
        }

        @Test("keys with '/', '..', NUL or over the length limit are refused")
        func strangeKeysAreRefused() throws {
            // A combining mark after '/' makes one Character of the two, but the file name still
            // holds the byte '/': the rules are checked on bytes.
            let keys = [
                "a/b", "a..b", "a\u{0}b", "a/\u{301}b", "a..\u{301}b",
                String(repeating: "k", count: StoreNames.maximumByteCount + 1),
            ]
            for key in keys {
                #expect(StoreNames.problem(with: key) != nil, "\(key)")
                #expect(throws: AppSettingsError.invalidKey(key: key, reason: StoreNames.problem(with: key)!)) {
                    try StoredSettingsEditor.check(key: key)
                }
            }
            let settings = SlashKeySettings(userDefaults: suite.userDefaults)
            guard case .invalidKey(let key, let reason)? = settings.lastLoadError else {
                Issue.record("not refused: \(String(describing: settings.lastLoadError))")
                return
            }
            #expect(key == settings.userDefaultsKey)
            #expect(reason.contains("'/'"))
            #expect(
                "\(AppSettingsError.invalidKey(key: "a\u{0}b", reason: "it contains a NUL character"))".contains(
                    #"a\u{0}b"#))
        }

        @Test("the tool refuses a strange suite name with exit 1 and writes nothing")
        func theToolRefusesStrangeSuiteNames() throws {
            let name = "../escape-\(UUID().uuidString)"
            let result = try Inspector.run(["set", "--suite", name, "--key", "MyAppsSettings", "theme", "dark"])
            #expect(result.status == 1)
            #expect(result.errors.contains("contains '/'"))
            let escaped = URL(fileURLWithPath: ConfigurationDirectory.path).appendingPathComponent(name + ".plist")
            #expect(!FileManager.default.fileExists(atPath: escaped.standardized.path))
        }
    }
#endif
