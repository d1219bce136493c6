import Foundation
import Testing

@testable import AppSettings

@Suite("Nested settings", .capturedLibraryLog)
struct NestedSettingsTests {
    let suite = TemporarySuite.forSettings()

    final class Parent: AppSettingsObject, @unchecked Sendable {
        @Setting var name = "parent"
        @Setting var audio = AudioSettings()
    }

    @Test func aNestedObjectIsStoredInsideItsParent() throws {
        let parent = Parent(userDefaults: suite.userDefaults)
        parent.audio.volume = 9
        #expect(parent.audio.hasUnsavedChanges)
        #expect(parent.hasUnsavedChanges)
        try parent.synchronizeToUserDefaults()
        #expect(!parent.hasUnsavedChanges)
        #expect(!parent.audio.hasUnsavedChanges)
        let keys = suite.another().dictionaryRepresentation().keys.filter { $0.hasPrefix("AppSettings.") }
        #expect(keys == ["AppSettings.Parent"])
        #expect(Parent(userDefaults: suite.another()).audio.volume == 9)
    }

    @Test func loadingFillsTheNestedObjectInPlace() throws {
        let parent = Parent(userDefaults: suite.userDefaults)
        let audio = parent.audio
        let writer = Parent(userDefaults: suite.another())
        writer.audio.muted = true
        try writer.synchronizeToUserDefaults()
        try parent.resetToUserDefaults()
        #expect(parent.audio === audio)
        #expect(audio.muted)
    }

    @Test func synchronizingTheNestedObjectSynchronizesTheParent() throws {
        let parent = Parent(userDefaults: suite.userDefaults)
        parent.audio.volume = 2
        try parent.audio.synchronizeToUserDefaults()
        #expect(!parent.hasUnsavedChanges)
        #expect(Parent(userDefaults: suite.another()).audio.volume == 2)
    }

    @Test func aReplacedNestedObjectIsStoredAndLinked() throws {
        let parent = Parent(userDefaults: suite.userDefaults)
        try parent.synchronizeToUserDefaults()
        let replacement = AudioSettings(userDefaults: suite.userDefaults)
        replacement.volume = 1
        parent.audio = replacement
        #expect(parent.hasUnsavedChanges)
        try parent.synchronizeToUserDefaults()
        replacement.muted = true
        #expect(parent.hasUnsavedChanges)
        try parent.synchronizeToUserDefaults()
        let reloaded = Parent(userDefaults: suite.another())
        #expect(reloaded.audio.volume == 1)
        #expect(reloaded.audio.muted)
    }

    @Test func nestedSettingsAreExportedAndImportedAsDictionaries() throws {
        let parent = Parent(userDefaults: suite.userDefaults)
        parent.audio.volume = 3
        let dictionary = parent.dictionaryRepresentation()
        #expect((dictionary["audio"] as? [String: Any])?["volume"] as? Int == 3)
        let other = Parent(userDefaults: suite.another())
        try other.update(from: dictionary)
        #expect(other.audio.volume == 3)
        #expect(
            throws: AppSettingsError.invalidDictionaryValue(setting: "audio.volume", expected: "Int", found: "String")
        ) {
            try other.update(from: ["name": "changed", "audio": ["volume": "loud"]])
        }
        #expect(other.name == "parent")
        #expect(throws: AppSettingsError.unknownSetting(key: other.userDefaultsKey, setting: "audio.bass")) {
            try other.update(from: ["audio": ["bass": 1]])
        }
    }

    final class Outputs: AppSettingsObject, @unchecked Sendable {
        @Setting var devices: [AudioSettings] = []
    }

    @Test func settingsObjectsInsideCollectionsRoundTrip() throws {
        let outputs = Outputs(userDefaults: suite.userDefaults)
        let first = AudioSettings(userDefaults: suite.userDefaults)
        first.volume = 1
        let second = AudioSettings(userDefaults: suite.userDefaults)
        second.muted = true
        outputs.devices = [first, second]
        try outputs.synchronizeToUserDefaults()
        let reloaded = Outputs(userDefaults: suite.another())
        #expect(reloaded.lastLoadError == nil)
        #expect(reloaded.devices.map(\.volume) == [1, 5])
        #expect(reloaded.devices.map(\.muted) == [false, true])
        #expect(reloaded.devices[0] == first)
    }

    @Test func aDamagedNestedValueNamesItsPath() throws {
        var archive = HandMadeArchive()
        let audio = archive.dictionary(["volume": archive.add(.string("loud")), "muted": archive.add(.bool(true))])
        let root = archive.settingsRoot(["audio": audio, "name": archive.add(.string("stored"))])
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.Parent")
        let parent = Parent(userDefaults: suite.userDefaults)
        #expect(parent.name == "stored")
        #expect(parent.audio.muted)
        #expect(parent.audio.volume == 5)
        guard case .unreadableSettings(_, let names, _) = parent.lastLoadError else {
            Issue.record("expected unreadableSettings, got \(String(describing: parent.lastLoadError))")
            return
        }
        #expect(names == ["audio.volume"])
    }
}
