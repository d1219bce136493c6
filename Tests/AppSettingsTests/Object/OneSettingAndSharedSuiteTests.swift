import AppSettings
import Foundation
import Observation
import Testing

/// `shared` on a subclass that names its own suite, as an app and its extensions do with an App
/// Group, and as previews and tests do with a scratch suite.
final class GroupSharedSettings: AppSettingsObject, @unchecked Sendable {
    static let suiteName = "AppSettingsTests-group-" + UUID().uuidString
    @Setting var volume = 3

    override class var sharedUserDefaults: UserDefaults { UserDefaults(suiteName: suiteName)! }
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.GroupShared" }
}

@Suite("One setting, and shared on another suite")
struct OneSettingAndSharedSuiteTests {
    let suite = TemporarySuite.forSettings()

    @Test func anObjectMadeBesideALiveOneLoadsWhatIsStoredNotItsUnsavedChanges() throws {
        // The new object takes the live one's reading of the same bytes instead of decoding them.
        let live = MySettings(userDefaults: suite.userDefaults)
        live.theme = .dark
        live.soundLevel = 0.25
        try live.synchronizeToUserDefaults()
        live.theme = .system  // unsaved
        let beside = MySettings(userDefaults: suite.another())
        #expect(beside.theme == .dark && beside.soundLevel == 0.25)
        #expect(!beside.hasUnsavedChanges && beside.lastLoadError == nil)
        beside.dontDimScreen = true
        try beside.synchronizeToUserDefaults()
        try live.synchronizeToUserDefaults()
        let fresh = MySettings(userDefaults: suite.another())
        #expect(fresh.theme == .system && fresh.dontDimScreen && fresh.soundLevel == 0.25)
    }

    @Test func sharedUsesTheOverriddenSuiteAndWritesNothingToStandard() throws {
        defer { TemporarySuite.remove(suiteNamed: GroupSharedSettings.suiteName) }
        let shared = GroupSharedSettings.shared
        #expect(shared === GroupSharedSettings.shared)
        shared.volume = 9
        try shared.synchronizeToUserDefaults()
        let group = try #require(UserDefaults(suiteName: GroupSharedSettings.suiteName))
        #expect(GroupSharedSettings(userDefaults: group).volume == 9)
        #expect(UserDefaults.standard.object(forKey: shared.userDefaultsKey) == nil)
    }

    @Test func oneSettingGoesBackToItsDeveloperDefaultIncludingTheOverride() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        settings.theme = .dark
        #expect(!settings.isDeveloperDefault(\.soundLevel))
        let notified = NotificationRecorder(settings, name: AppSettingsObject.didChangeNotification)
        let tracked = Recorder<Bool>()
        withObservationTracking {
            _ = settings.soundLevel
        } onChange: {
            tracked.record(true)
        }
        settings.resetToDeveloperDefault(\.soundLevel)
        // The override of resetToDeveloperDefaults() sets 0.5, not the declared 0.7.
        #expect(settings.soundLevel == 0.5)
        #expect(settings.isDeveloperDefault(\.soundLevel))
        #expect(settings.theme == .dark, "other settings are left as they are")
        #expect(!settings.isDeveloperDefault(\MySettings.theme))
        #expect(tracked.values == [true])
        #expect(notified.names.values == [["soundLevel"]])
        #expect(settings.hasUnsavedChanges)
    }

    @Test func aNestedObjectIsResetWholeAndKeepsItsIdentity() throws {
        let settings = NestedSettingsTests.Parent(userDefaults: suite.userDefaults)
        let audio = settings.audio
        settings.audio.volume = 11
        settings.audio.muted = true
        settings.name = "changed"
        #expect(!settings.isDeveloperDefault(\.audio))
        settings.resetToDeveloperDefault(\.audio)
        #expect(settings.audio === audio)
        #expect(settings.audio.volume == 5 && !settings.audio.muted)
        #expect(settings.isDeveloperDefault(\.audio))
        #expect(settings.name == "changed")
        settings.audio.volume = 12
        settings.resetToDeveloperDefault(\.audio.volume)
        #expect(settings.audio.volume == 5)
    }
}
