import Foundation
import Testing

@testable import AppSettings

/// Several writers of one settings set in one process: a synchronization merges its changes with
/// what is stored now (issue 11). The same across processes is in `ProcessTests`.
@Suite("Merging", .capturedLibraryLog)
struct MergeTests {
    let suite = TemporarySuite.forSettings()

    @Test("two objects changing different settings: both changes survive, the later one adopts the other's")
    func differentSettingsBothSurvive() async throws {
        let first = MySettings(userDefaults: suite.userDefaults)
        let second = MySettings(userDefaults: suite.another())
        let secondNotified = NotificationRecorder(second)
        first.theme = .dark
        try first.synchronizeToUserDefaults()
        var events = second.changes.makeAsyncIterator()
        second.dontDimScreen = true
        try second.synchronizeToUserDefaults()

        let loaded = MySettings(userDefaults: suite.another())
        #expect(loaded.theme == .dark)
        #expect(loaded.dontDimScreen)
        // The later writer holds the merged set, saved, and said which setting came from the store.
        #expect(second.theme == .dark)
        #expect(!second.hasUnsavedChanges)
        #expect(secondNotified.names.values == [["dontDimScreen"], ["theme"]])
        #expect(await events.next() == .settingsChanged(["dontDimScreen"]))
        #expect(await events.next() == .settingsChanged(["theme"]))
        // The next synchronization of the first writer merges the other way.
        first.soundLevel = 0.25
        try first.synchronizeToUserDefaults()
        #expect(first.dontDimScreen)
        try loaded.resetToUserDefaults()
        #expect(loaded.theme == .dark && loaded.dontDimScreen && loaded.soundLevel == 0.25)
    }

    @Test("the same setting changed on both sides: the later synchronization wins it, and says so")
    func sameSettingLaterWinsAndIsReported() async throws {
        let first = MySettings(userDefaults: suite.userDefaults)
        let second = MySettings(userDefaults: suite.userDefaults)
        first.soundLevel = 0.25
        first.theme = .dark
        try first.synchronizeToUserDefaults()
        var events = second.changes.makeAsyncIterator()
        second.soundLevel = 0.75
        try second.synchronizeToUserDefaults()

        #expect(await events.next() == .settingsChanged(["soundLevel"]))
        #expect(await events.next() == .settingsChanged(["theme"]))
        #expect(await events.next() == .mergeConflicts(["soundLevel"]))
        let loaded = MySettings(userDefaults: suite.another())
        #expect(loaded.soundLevel == 0.75)
        #expect(loaded.theme == .dark)
    }

    @Test("the same value written on both sides is no conflict")
    func sameValueIsNoConflict() async throws {
        let first = MySettings(userDefaults: suite.userDefaults)
        let second = MySettings(userDefaults: suite.userDefaults)
        first.theme = .dark
        try first.synchronizeToUserDefaults()
        let recorder = Recorder<AppSettingsChange>()
        let events = second.changes
        second.theme = .dark
        try second.synchronizeToUserDefaults()
        second.dontDimScreen = true  // an event after the synchronization's, to wait for
        for await event in events {
            recorder.record(event)
            if event == .settingsChanged(["dontDimScreen"]) { break }
        }
        #expect(recorder.values == [.settingsChanged(["theme"]), .settingsChanged(["dontDimScreen"])])
    }

    @Test("validate: and checkAfterDecode() apply to what is adopted")
    func adoptedValuesAreChecked() throws {
        let first = CheckedSettings(userDefaults: suite.userDefaults)
        let second = CheckedSettings(userDefaults: suite.userDefaults)
        first.minimum = 20
        try first.synchronizeToUserDefaults()
        second.maximum = 15
        try second.synchronizeToUserDefaults()
        // minimum 20 came from the store; checkAfterDecode raised maximum to it.
        #expect(second.minimum == 20 && second.maximum == 20)
        let loaded = CheckedSettings(userDefaults: suite.another())
        #expect(loaded.minimum == 20 && loaded.maximum == 20)
    }

    @Test("nested settings objects merge as one setting each")
    func nestedObjectsMergePerTopLevelSetting() throws {
        let first = AllTypesSettings(userDefaults: suite.userDefaults)
        let second = AllTypesSettings(userDefaults: suite.userDefaults)
        first.audio.volume = 9
        try first.synchronizeToUserDefaults()
        second.int = 3
        try second.synchronizeToUserDefaults()
        #expect(second.audio.volume == 9)
        #expect(!second.hasUnsavedChanges)
        let loaded = AllTypesSettings(userDefaults: suite.another())
        #expect(loaded.audio.volume == 9 && loaded.int == 3)

        // Both change the nested object: the later synchronization writes its whole nested set.
        first.audio.muted = true
        try first.synchronizeToUserDefaults()
        second.audio.volume = 1
        try second.synchronizeToUserDefaults()
        try loaded.resetToUserDefaults()
        #expect(loaded.audio.volume == 1 && !loaded.audio.muted)
    }

    @Test("an unreadable stored set is backed up and replaced, never merged into")
    func unreadableStoredSetIsBackedUpNotMerged() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        suite.userDefaults.set(Data([1, 2, 3]), forKey: settings.userDefaultsKey)
        suite.userDefaults.synchronize()
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        let backups = suite.userDefaults.dictionaryRepresentation().filter {
            $0.key.hasPrefix(settings.userDefaultsKey + ".unreadable-")
        }
        #expect(backups.map { $0.value as? Data } == [Data([1, 2, 3])], "the unreadable bytes, backed up once")
        let loaded = MySettings(userDefaults: suite.another())
        #expect(loaded.lastLoadError == nil)
        #expect(loaded.theme == .dark)
    }

    @Test("settings this class does not declare are kept from the stored set")
    func undeclaredSettingsComeFromTheStore() throws {
        let narrow = NarrowSettings(userDefaults: suite.userDefaults)
        let wide = WideSettings(userDefaults: suite.userDefaults)
        wide.extra = "from a newer version"
        try wide.synchronizeToUserDefaults()
        narrow.value = 7
        try narrow.synchronizeToUserDefaults()
        let loaded = WideSettings(userDefaults: suite.another())
        #expect(loaded.extra == "from a newer version")
        #expect(loaded.value == 7)
    }
}

/// One setting of `WideSettings`' set, as an older version of an app declares it.
final class NarrowSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    override var userDefaultsKeyPostfix: String { "MergeTests.Versions" }
}

/// The same set with one more setting.
final class WideSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    @Setting var extra = ""
    override var userDefaultsKeyPostfix: String { "MergeTests.Versions" }
}
