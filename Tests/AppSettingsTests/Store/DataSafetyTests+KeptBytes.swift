import Foundation
import Testing

@testable import AppSettings

extension DataSafetyTests {
    @Test func anArchiveOfANewerFormatIsRefusedAndKept() throws {
        var archive = HandMadeArchive()
        let theme = archive.add(.string("dark"))
        let root = archive.object(
            ArchiveFormat.rootClassName, ["$formatVersion": .plain(.integer(3)), "theme": .reference(theme)])
        let bytes = archive.finish(root: root)
        let key = "AppSettings.MyAppsSettings"
        suite.userDefaults.set(bytes, forKey: key)
        let settings = MySettings(userDefaults: suite.userDefaults)
        guard case .unreadableArchive(_, _, let reason) = settings.lastLoadError else {
            Issue.record("expected unreadableArchive, got \(String(describing: settings.lastLoadError))")
            return
        }
        #expect(reason.contains("format 3"))
        #expect(settings.theme == .light)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let backup = suite.another().dictionaryRepresentation().first { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backup?.value as? Data == bytes)
    }

    @Test func unknownNamesBeginningWithDollarAreEscapedAndKept() throws {
        // Format 1 allowed any dictionary key; a carried-over "$…" name must not clash with the
        // "$formatVersion" and "$schemaVersion" fields of format 2.
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "$schemaVersion": archive.add(.string("not a version")), "$x": archive.add(.integer(5)),
            "theme": archive.add(.string("dark")),
        ])
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.lastLoadError == nil)
        #expect(settings.theme == .dark)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let contents = try StoredSetContents(
            #require(suite.storedObject(forKey: "AppSettings.MyAppsSettings") as? Data))
        #expect(contents.schemaVersion == 0)
        #expect(contents.settings["$schemaVersion"] == .string("not a version"))
        #expect(contents.settings["$x"] == .integer(5))
        #expect(MySettings(userDefaults: suite.another()).dontDimScreen == true)
    }

    @Test func aPartlyReadableSetIsBackedUpTooSoNothingIsLost() throws {
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "soundLevel": archive.add(.string("loud")), "theme": archive.add(.string("dark")),
        ])
        let bytes = archive.finish(root: root)
        suite.userDefaults.set(bytes, forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.theme == .dark)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let backup = suite.another().dictionaryRepresentation().first {
            $0.key.hasPrefix("AppSettings.MyAppsSettings.unreadable-")
        }
        #expect(backup?.value as? Data == bytes)
    }

    @Test func settingsWrittenByANewerVersionAreCarriedOver() throws {
        var archive = HandMadeArchive()
        let root = archive.settingsRoot(
            ["theme": archive.add(.string("dark")), "futureSetting": archive.add(.string("from the future"))],
            schemaVersion: 7
        )
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.lastLoadError == nil)
        #expect(settings.theme == .dark)
        settings.soundLevel = 0.2
        try settings.synchronizeToUserDefaults()
        let stored = try #require(suite.storedObject(forKey: "AppSettings.MyAppsSettings") as? Data)
        let contents = try StoredSetContents(stored)
        #expect(contents.settings["futureSetting"] == .string("from the future"))
        #expect(contents.schemaVersion == 7)
        #expect(settings.dictionaryRepresentation()["futureSetting"] == nil)
    }

    @Test func backupsOfUnreadableSetsAreCappedToTheNewest() throws {
        let key = MySettings(userDefaults: suite.userDefaults).userDefaultsKey
        for round in 1...5 {
            suite.userDefaults.set(Data("damaged \(round)".utf8), forKey: key)
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            Thread.sleep(forTimeInterval: 0.002)  // backup keys are stamped in milliseconds
        }
        let backups = suite.another().dictionaryRepresentation().filter { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backups.count == SettingsStore.maximumBackupCount)
        let kept = Set(backups.values.compactMap { ($0 as? Data).map { String(decoding: $0, as: UTF8.self) } })
        #expect(kept == ["damaged 3", "damaged 4", "damaged 5"])
    }
}
