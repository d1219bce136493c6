import AppSettings
import Foundation
import Testing

@Suite("Legacy keys", .capturedLibraryLog)
struct LegacyKeyTests {
    let suite = TemporarySuite.forSettings()

    final class Migrated: AppSettingsObject, @unchecked Sendable {
        @Setting(legacyKey: "sound_level", validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
        @Setting(legacyKey: "volume") var volume: Double = 1
        @Setting("nickname", legacyKey: "user_name") var name = "anonymous"
        @Setting(legacyKey: "dark_mode") var darkMode = false
        @Setting(legacyKey: "last_opened") var lastOpened = Date(timeIntervalSince1970: 0)
        @Setting(legacyKey: "token") var token = Data()
        @Setting(legacyKey: "recent") var recent: [String] = []
        @Setting(legacyKey: "retries") var retries = 3
        @Setting var checkedAfterDecode = false

        override var userDefaultsKeyPostfix: String { "Migrated" }

        override func checkAfterDecode() {
            checkedAfterDecode = true
        }
    }

    @Test func valuesOfEverySupportedTypeComeFromTheLegacyKeysUntilTheSetIsStored() throws {
        let defaults = suite.userDefaults
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        defaults.set(1.5, forKey: "sound_level")  // out of range: validated
        defaults.set(4, forKey: "volume")  // an Int for a Double
        defaults.set("Ada", forKey: "user_name")
        defaults.set(true, forKey: "dark_mode")
        defaults.set(date, forKey: "last_opened")
        defaults.set(Data([1, 2, 3]), forKey: "token")
        defaults.set(["a", "b"], forKey: "recent")
        defaults.set(7, forKey: "retries")

        let settings = Migrated(userDefaults: defaults)
        #expect(settings.lastLoadError == nil)
        #expect(settings.soundLevel == 1)
        #expect(settings.volume == 4)
        #expect(settings.name == "Ada")
        #expect(settings.darkMode)
        #expect(settings.lastOpened == date)
        #expect(settings.token == Data([1, 2, 3]))
        #expect(settings.recent == ["a", "b"])
        #expect(settings.retries == 7)
        #expect(settings.checkedAfterDecode)
        #expect(settings.hasUnsavedChanges, "imported values are stored by the next synchronization")

        try settings.synchronizeToUserDefaults()
        // Kept for an older version of the app; never read again now that the set is stored.
        #expect(defaults.object(forKey: "user_name") as? String == "Ada")
        defaults.set("Grace", forKey: "user_name")
        let reloaded = Migrated(userDefaults: suite.another())
        #expect(reloaded.name == "Ada")
        #expect(!reloaded.hasUnsavedChanges)
    }

    @Test func aLegacyValueOfTheWrongTypeKeepsTheDeveloperDefaultAndIsReported() throws {
        suite.userDefaults.set("loud", forKey: "volume")
        suite.userDefaults.set(["not", "a", "date"], forKey: "last_opened")
        suite.userDefaults.set(5, forKey: "retries")
        let settings = Migrated(userDefaults: suite.userDefaults)
        #expect(settings.volume == 1)
        #expect(settings.lastOpened == Date(timeIntervalSince1970: 0))
        #expect(settings.retries == 5, "the others load")
        guard case .unreadableSettings(_, let names, let reasons)? = settings.lastLoadError else {
            Issue.record("expected unreadableSettings, got \(String(describing: settings.lastLoadError))")
            return
        }
        #expect(Set(names) == ["volume", "lastOpened"])
        #expect(reasons.count == names.count && reasons.allSatisfy { $0.contains("legacy") }, "\(reasons)")
    }

    @Test func registeredDefaultsAreNotTakenForValuesTheUserSet() throws {
        suite.userDefaults.register(defaults: ["volume": 8.0, "retries": 9])
        suite.userDefaults.set(2, forKey: "retries")
        let settings = Migrated(userDefaults: suite.userDefaults)
        #expect(settings.volume == 1, "a registered default is not the user's value")
        #expect(settings.retries == 2)
    }

    @Test func withNoLegacyValuesNothingIsUnsaved() {
        let settings = Migrated(userDefaults: suite.userDefaults)
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.lastLoadError == nil)
    }
}
