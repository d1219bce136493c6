import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// `init(store: .inMemory(name))`: a store in this process's memory that behaves as a suite does.
@Suite("In-memory store", .capturedLibraryLog)
struct InMemoryStoreTests {
    /// A fresh store name per test, so that tests running in parallel never share one.
    let name = "InMemoryStoreTests-" + UUID().uuidString

    @Test("objects of one name see each other's saves; objects of another name do not")
    func objectsOfOneNameShareTheStore() throws {
        let first = MySettings(store: .inMemory(name))
        first.theme = .dark
        first.soundLevel = 0.25
        try first.synchronizeToUserDefaults()

        let second = MySettings(store: .inMemory(name))
        #expect(second.theme == .dark)
        #expect(second.soundLevel == 0.25)
        #expect(!second.hasUnsavedChanges)
        #expect(second.lastLoadError == nil)

        let other = MySettings(store: .inMemory(name + "-other"))
        #expect(other.theme == .light)
        #expect(other.soundLevel == 0.5)
        // Nor does the suite the same key is stored under on disk.
        #expect(MySettings(store: .inMemory(UUID().uuidString)).theme == .light)
    }

    @Test("two live objects of one store merge per setting and tell each other of saves")
    func liveObjectsMergeAndAreTold() async throws {
        let first = MySettings(store: .inMemory(name))
        let second = MySettings(store: .inMemory(name))
        var events = second.changes.makeAsyncIterator()
        first.theme = .dark
        try first.synchronizeToUserDefaults()
        #expect(await events.next() == .storedSettingsChanged)

        second.dontDimScreen = true
        try second.synchronizeToUserDefaults()
        // The later writer took the other's setting and kept its own.
        #expect(second.theme == .dark)
        #expect(second.dontDimScreen)
        #expect(!second.hasUnsavedChanges)

        let loaded = MySettings(store: .inMemory(name))
        #expect(loaded.theme == .dark && loaded.dontDimScreen)

        // The same setting on both sides: the later synchronization wins it, and says so.
        first.soundLevel = 0.25
        try first.synchronizeToUserDefaults()
        var secondEvents = second.changes.makeAsyncIterator()
        second.soundLevel = 0.75
        try second.synchronizeToUserDefaults()
        var seen: [AppSettingsChange] = []
        while let event = await secondEvents.next() {
            seen.append(event)
            if case .mergeConflicts = event { break }
        }
        #expect(seen.contains(.mergeConflicts(["soundLevel"])))
        #expect(MySettings(store: .inMemory(name)).soundLevel == 0.75)
    }

    @Test("revert, reset to developer defaults and remove work as on a suite")
    func revertResetAndRemove() throws {
        let settings = MySettings(store: .inMemory(name))
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()

        settings.theme = .system
        try settings.resetToUserDefaults()
        #expect(settings.theme == .dark)
        #expect(!settings.hasUnsavedChanges)

        settings.resetToDeveloperDefaults()
        #expect(settings.theme == .light)
        #expect(settings.soundLevel == 0.5)
        #expect(settings.hasUnsavedChanges)
        try settings.resetToUserDefaults()
        #expect(settings.theme == .dark)

        try settings.removeFromUserDefaults()
        #expect(settings.theme == .light)
        #expect(settings.userDefaults.object(forKey: settings.userDefaultsKey) == nil)
        #expect(MySettings(store: .inMemory(name)).theme == .light)
    }

    @Test("documents: a JSON document goes in and out of an in-memory object")
    func documents() throws {
        let settings = MySettings(store: .inMemory(name))
        try settings.update(fromJSON: Data(#"{"theme": "dark", "soundLevel": 0.25}"#.utf8))
        #expect(settings.theme == .dark)
        try settings.synchronizeToUserDefaults()
        let document = try MySettings(store: .inMemory(name)).jsonRepresentation()
        let object = try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
        #expect(object["theme"] as? String == "dark")
        #expect(object["soundLevel"] as? Double == 0.25)
    }

    @Test("its UserDefaults reads and writes the store: a legacy key written through it is read")
    func userDefaultsOfTheStore() throws {
        let settings = MySettings(store: .inMemory(name))
        #expect(settings.settingsStore.isInMemory)
        let suite = TemporarySuite()
        #expect(!MySettings(store: .userDefaults(suite.userDefaults)).settingsStore.isInMemory)
        try settings.synchronizeToUserDefaults(forcing: true)
        let stored = try #require(settings.userDefaults.object(forKey: settings.userDefaultsKey) as? Data)
        #expect(
            MySettings(store: .inMemory(name)).userDefaults.object(forKey: settings.userDefaultsKey) as? Data == stored)

        let legacy = LegacyTheme(store: .inMemory(name))
        legacy.userDefaults.set("dark", forKey: "legacyThemeKey")
        #expect(LegacyTheme(store: .inMemory(name)).theme == .dark)
        legacy.userDefaults.set(3, forKey: "count")
        #expect(legacy.userDefaults.integer(forKey: "count") == 3)
        #expect(legacy.userDefaults.dictionaryRepresentation()["count"] as? Int == 3)
    }

    @Test("nothing reaches the disk: no domain file, no recovery copy, no key in UserDefaults.standard")
    func nothingOnDisk() throws {
        let settings = MySettings(store: .inMemory(name))
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        #expect(settings.settingsStore.domainFileURL == nil)
        #expect(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey) == nil)
        let onDisk = MySettings(userDefaults: .standard)
        let files = [
            onDisk.settingsStore.domainFileURL, onDisk.settingsStore.recoveryCopyURL(forKey: onDisk.userDefaultsKey),
        ]
        for url in files.compactMap({ $0 }) {
            let contents = (try? Data(contentsOf: url)) ?? Data()
            #expect(contents.range(of: Data(name.utf8)) == nil)
        }
        #expect(!FileManager.default.fileExists(atPath: Self.configurationDirectory + "/AppSettings.InMemory.plist"))
    }

    static var configurationDirectory: String {
        if let xdg = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg }
        return NSHomeDirectory() + "/.config"
    }
}

/// A set whose one setting was stored under a key of its own before.
final class LegacyTheme: AppSettingsObject, @unchecked Sendable {
    @Setting(legacyKey: "legacyThemeKey") var theme = Theme.light
}

extension AppSettingsObject {
    /// A save that writes even a clean object, for tests.
    func synchronizeToUserDefaults(forcing: Bool) throws {
        try synchronize(forcing: forcing)
    }
}

/// `AppSettingsLog.capture`: a test keeps the library's log lines it provokes, and checks them.
@Suite("Library log")
struct LibraryLogTests {
    @Test("a damaged set's load is logged into the capture, not to standard error")
    func captureKeepsTheLinesOfTheTask() async throws {
        let name = "LibraryLogTests-" + UUID().uuidString
        InMemoryStorage.named(name).set(Data("not an archive".utf8), forKey: "AppSettings.MyAppsSettings")
        defer { InMemoryStorage.remove(named: name) }
        let (settings, lines) = AppSettingsLog.capture { MySettings(store: .inMemory(name)) }
        #expect(settings.lastLoadError != nil)
        #expect(lines.count == 1)
        #expect(
            lines.first?.hasPrefix("AppSettings error: MySettings: the settings under 'AppSettings.MyAppsSettings'")
                == true)

        // Child tasks write into the capture too.
        let (_, asyncLines) = await AppSettingsLog.capture {
            await Task { _ = MySettings(store: .inMemory(name)) }.value
        }
        #expect(asyncLines == lines)
        // Nothing is captured outside.
        let (_, none) = AppSettingsLog.capture {}
        #expect(none.isEmpty)
    }
}
