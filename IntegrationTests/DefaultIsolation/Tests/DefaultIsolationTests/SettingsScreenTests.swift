import AppSettings
import AppSettingsTesting
import Testing

// The README's test, as an app's test target (default actor isolation MainActor) writes it.

// Declared in a `nonisolated` namespace, as the README says for such targets.
nonisolated enum Settings {
    final class MySettings: AppSettingsObject, @unchecked Sendable {
        @Setting var soundLevel: Float = 0.7
    }
}

typealias MySettings = Settings.MySettings

@Suite(.isolatedAppSettings) struct SettingsScreenTests {
    @Test func startsFromDeveloperDefaults() throws {
        #expect(MySettings.shared.soundLevel == 0.7)  // this test's own shared instance
        MySettings.shared.soundLevel = 0.2
        try MySettings.shared.synchronizeToUserDefaults()
        #expect(MySettings().soundLevel == 0.2)  // another object of this test sees the save
    }

    @Test(arguments: 0..<40) func eachCaseIsOnItsOwn(value: Int) throws {
        #expect(MySettings.shared.soundLevel == 0.7)
        MySettings.shared.soundLevel = Float(value) / 100
        try MySettings.shared.synchronizeToUserDefaults()
        #expect(MySettings().soundLevel == Float(value) / 100)
    }
}
