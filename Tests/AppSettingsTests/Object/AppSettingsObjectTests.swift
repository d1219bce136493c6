import Foundation
import Testing

@testable import AppSettings

@Suite("AppSettingsObject", .capturedLibraryLog)
struct AppSettingsObjectTests {
    let suite = TemporarySuite.forSettings()

    @Test func developerDefaultsIncludeTheOverride() {
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.soundLevel == 0.5)
        #expect(settings.theme == .light)
        #expect(settings.dontDimScreen == false)
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.lastLoadError == nil)
    }

    @Test func validateRunsOnEveryAssignment() {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 7
        #expect(settings.soundLevel == 1)
        settings.soundLevel = -3
        #expect(settings.soundLevel == 0)
    }

    @Test func synchronizeStoresTheWholeSetUnderOneKey() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.85
        settings.theme = .dark
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.userDefaultsKey == "AppSettings.MyAppsSettings")
        let keys = Set(suite.another().dictionaryRepresentation().keys.filter { $0.hasPrefix("AppSettings") })
        #expect(keys == ["AppSettings.MyAppsSettings"])
        let stored = try #require(suite.storedObject(forKey: settings.userDefaultsKey) as? Data)
        let storedSettings = try StoredSetContents(stored).settings
        #expect(storedSettings["soundLevel"] == .float(0.85) && storedSettings["theme"] == .string("dark"))

        let reloaded = MySettings(userDefaults: suite.another())
        #expect(reloaded.soundLevel == 0.85)
        #expect(reloaded.theme == .dark)
        #expect(reloaded == settings)
    }

    @Test func aCleanSynchronizeWritesNothing() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        // Something else replaces the stored value; a clean object must not write over it.
        let other = suite.another()
        other.set("written by someone else", forKey: settings.userDefaultsKey)
        other.synchronize()
        try settings.synchronizeToUserDefaults()
        #expect(suite.storedObject(forKey: settings.userDefaultsKey) as? String == "written by someone else")
    }

    @Test func resetToUserDefaultsRevertsUnsavedChanges() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        try settings.synchronizeToUserDefaults()
        settings.soundLevel = 0.1
        settings.theme = .system
        try settings.resetToUserDefaults()
        #expect(settings.soundLevel == 0.9)
        #expect(settings.theme == .light)
        #expect(!settings.hasUnsavedChanges)
    }

    @Test func resetToUserDefaultsSeesWhatAnotherInstanceWrote() throws {
        let first = MySettings(userDefaults: suite.userDefaults)
        let second = MySettings(userDefaults: suite.another())
        first.theme = .dark
        try first.synchronizeToUserDefaults()
        #expect(second.theme == .light)
        try second.resetToUserDefaults()
        #expect(second.theme == .dark)
    }

    @Test func settingsAbsentFromTheStoredSetGetDeveloperDefaults() throws {
        let writer = CheckedSettings(userDefaults: suite.userDefaults)
        writer.minimum = 4
        try writer.synchronizeToUserDefaults()
        // A class of another name and shape reading the same key: only `minimum` is stored.
        final class Wider: AppSettingsObject, @unchecked Sendable {
            @Setting var minimum = 0
            @Setting var extra = "developer default"
            override var userDefaultsKeyPostfix: String { "CheckedSettings" }
        }
        let reader = Wider(userDefaults: suite.another())
        #expect(reader.minimum == 4)
        #expect(reader.extra == "developer default")
    }

    @Test func removeFromUserDefaultsDeletesTheKeyAndResets() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        try settings.synchronizeToUserDefaults()
        try settings.removeFromUserDefaults()
        #expect(settings.soundLevel == 0.5)
        #expect(suite.storedObject(forKey: settings.userDefaultsKey) == nil)
        #expect(MySettings(userDefaults: suite.another()).soundLevel == 0.5)
    }

    @Test func resetToDeveloperDefaultsRestoresDeclaredValuesAndTheOverride() {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        settings.theme = .dark
        settings.resetToDeveloperDefaults()
        #expect(settings.soundLevel == 0.5)
        #expect(settings.theme == .light)
    }

    @Test func checkAfterDecodeRunsAfterALoad() throws {
        let settings = CheckedSettings(userDefaults: suite.userDefaults)
        #expect(settings.constDecodeCount == 0)
        settings.minimum = 20
        try settings.synchronizeToUserDefaults()
        let reloaded = CheckedSettings(userDefaults: suite.another())
        #expect(reloaded.constDecodeCount == 1)
        #expect(reloaded.maximum == 20)
        try reloaded.update(from: ["minimum": 30])
        #expect(reloaded.maximum == 30)
    }

    @Test func settingNamesAreInDeclarationOrderWithoutConstSettings() {
        #expect(
            MySettings(userDefaults: suite.userDefaults).settingNames == [
                "dontDimScreen", "soundLevel", "theme", "constellation",
            ])
        #expect(
            DerivedSettings(userDefaults: suite.userDefaults).settingNames == ["baseValue", "shared", "derivedValue"])
    }

    @Test func constSettingsAreNeverStoredButConstellationIs() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.constLastSeenBuild = 42
        #expect(!settings.hasUnsavedChanges)
        settings.constellation = "Lyra"
        settings.constCachedVolume = 3
        try settings.synchronizeToUserDefaults()
        #expect(settings.dictionaryRepresentation()["constLastSeenBuild"] == nil)
        let reloaded = MySettings(userDefaults: suite.another())
        #expect(reloaded.constLastSeenBuild == 0)
        #expect(reloaded.constCachedVolume == 0)
        #expect(reloaded.constellation == "Lyra")
        let stored = try #require(suite.storedObject(forKey: settings.userDefaultsKey) as? Data)
        let names = try StoredSetContents(stored).settings.keys
        #expect(Set(names) == ["dontDimScreen", "soundLevel", "theme", "constellation"])
    }

    @Test func theConstRuleNeedsAnUppercaseLetterDigitOrUnderscore() {
        #expect(SettingsLayout.isConstantName("constLastSeenBuild"))
        #expect(SettingsLayout.isConstantName("const1"))
        #expect(SettingsLayout.isConstantName("const_value"))
        #expect(!SettingsLayout.isConstantName("constellation"))
        #expect(!SettingsLayout.isConstantName("const"))
        #expect(!SettingsLayout.isConstantName("myConstValue"))
    }

    @Test func theKeyEndsWithThePostfixWhichDefaultsToTheClassName() {
        #expect(MySettings(userDefaults: suite.userDefaults).userDefaultsKey == "AppSettings.MyAppsSettings")
        #expect(CheckedSettings(userDefaults: suite.userDefaults).userDefaultsKey == "AppSettings.CheckedSettings")
    }

    @Test func anEmptyPostfixIsAClearError() throws {
        final class Unnamed: AppSettingsObject, @unchecked Sendable {
            @Setting var value = 1
            override var userDefaultsKeyPostfix: String { "" }
        }
        let settings = Unnamed(userDefaults: suite.userDefaults)
        #expect(settings.lastLoadError == .emptyKeyPostfix(settingsClass: "Unnamed"))
        settings.value = 2
        #expect(throws: AppSettingsError.emptyKeyPostfix(settingsClass: "Unnamed")) {
            try settings.synchronizeToUserDefaults()
        }
    }

    @Test func duplicateStoredNamesAreAClearError() {
        final class Twice: AppSettingsObject, @unchecked Sendable {
            @Setting var volume = 1
            @Setting("volume") var loudness = 2
        }
        let settings = Twice(userDefaults: suite.userDefaults)
        settings.volume = 3
        #expect(throws: AppSettingsError.duplicateStoredName(settingsClass: "Twice", name: "volume")) {
            try settings.synchronizeToUserDefaults()
        }
    }

    @Test func anExplicitStoredNameKeepsTheStoredValueAcrossARename() throws {
        let original = MySettings(userDefaults: suite.userDefaults)
        original.soundLevel = 0.25
        try original.synchronizeToUserDefaults()
        let renamed = RenamedSettings(userDefaults: suite.another())
        #expect(renamed.soundLevel == 0.25)
        #expect(renamed.settingNames == ["soundLevel", "volume"])
        renamed.soundLevel = 4
        #expect(renamed.soundLevel == 1)
    }

    @Test func storedValuesDoNotDependOnTheClassName() throws {
        final class OldName: AppSettingsObject, @unchecked Sendable {
            @Setting var greeting = "hello"
            override var userDefaultsKeyPostfix: String { "Renamed" }
        }
        final class NewName: AppSettingsObject, @unchecked Sendable {
            @Setting var greeting = "hello"
            override var userDefaultsKeyPostfix: String { "Renamed" }
        }
        let old = OldName(userDefaults: suite.userDefaults)
        old.greeting = "bonjour"
        try old.synchronizeToUserDefaults()
        let stored = try #require(suite.storedObject(forKey: old.userDefaultsKey) as? Data)
        #expect(stored.range(of: Data("OldName".utf8)) == nil)
        #expect(NewName(userDefaults: suite.another()).greeting == "bonjour")
    }

    @Test func plainStoredPropertiesAreNeverStored() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.constCachedVolume = 9
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        #expect(MySettings(userDefaults: suite.another()).constCachedVolume == 0)
    }

    @Test func dictionaryRepresentationAndUpdateRoundTrip() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.theme = .dark
        let dictionary = settings.dictionaryRepresentation()
        #expect(dictionary["theme"] as? String == "dark")
        #expect(dictionary["soundLevel"] as? Float == 0.5)
        #expect(dictionary["constLastSeenBuild"] == nil)
        #expect(PropertyListSerialization.propertyList(dictionary, isValidFor: .binary))
        let other = MySettings(userDefaults: suite.another())
        try other.update(from: dictionary)
        #expect(other == settings)
        #expect(other.hasUnsavedChanges)
    }

    @Test func updateIsAllOrNothing() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(throws: AppSettingsError.invalidDictionaryValue(setting: "theme", expected: "Theme", found: "String")) {
            try settings.update(from: ["soundLevel": 0.9, "theme": "purple"])
        }
        #expect(settings.soundLevel == 0.5)
        #expect(!settings.hasUnsavedChanges)
        #expect(throws: AppSettingsError.self) { try settings.update(from: ["dontDimScreen": "yes"]) }
        // A name that is no setting is refused, as update(fromJSON:) refuses it (issue 39).
        let key = settings.userDefaultsKey
        #expect(throws: AppSettingsError.unknownSetting(key: key, setting: "unknownKey")) {
            try settings.update(from: ["soundLevel": 0.9, "unknownKey": 1])
        }
        #expect(throws: AppSettingsError.unknownSetting(key: key, setting: "constLastSeenBuild")) {
            try settings.update(from: ["constLastSeenBuild": 7])
        }
        #expect(settings.soundLevel == 0.5 && !settings.hasUnsavedChanges)
        try settings.update(from: ["soundLevel": 3])
        #expect(settings.soundLevel == 1)
    }

    @Test func copiesAreIndependentAndEqual() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.theme = .dark
        let copy = try #require(settings.copy() as? MySettings)
        #expect(copy == settings)
        #expect(copy.hash == settings.hash)
        #expect(copy.hasUnsavedChanges)
        copy.theme = .system
        #expect(settings.theme == .dark)
        #expect(copy != settings)
    }

    @Test func anUnreadableArchiveErrorSaysWhichSettingsKeepTheirDefaults() {
        let some = AppSettingsError.unreadableArchive(key: "k", settings: ["a", "b"], reason: "truncated")
        #expect(some.description.contains("developer defaults are used for a, b;"))
        let none = AppSettingsError.unreadableArchive(key: "k", settings: [], reason: "truncated")
        #expect(
            none.description
                == "the settings under 'k' could not be read (truncated); no setting was read; the stored bytes are kept"
        )
    }

    @Test func descriptionListsTheSettings() {
        let description = MySettings(userDefaults: suite.userDefaults).description
        #expect(description.contains("MySettings"))
        #expect(description.contains("soundLevel = 0.5"))
        #expect(description.contains("theme = light"))
    }
}

let foundationClasses: [AnyClass] = [
    NSDictionary.self, NSArray.self, NSSet.self, NSString.self, NSNumber.self, NSData.self, NSDate.self,
    NSURL.self, NSUUID.self, NSNull.self,
]
