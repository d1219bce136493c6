import Foundation
import Testing

@testable import AppSettings

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
