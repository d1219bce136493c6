import Foundation
import Testing

@testable import AppSettings

extension OverrideTests {
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
}
