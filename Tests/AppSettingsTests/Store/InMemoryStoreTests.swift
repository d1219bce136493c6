import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// `init(store: .inMemory(name))`: a store in this process's memory that behaves as a suite does.
@Suite("In-memory store", .capturedLibraryLog)
struct InMemoryStoreTests {
    /// A fresh store name per test, so that tests running in parallel never share one.
    let name = "InMemoryStoreTests-" + UUID().uuidString

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
        try ledger.synchronize(forcing: forcing)
    }
}

extension SettingsLedger {
    /// A save that writes even a clean object (every value as it holds it), for tests.
    @discardableResult
    func synchronize(forcing: Bool) throws -> FinishedSave? {
        if forcing { object._state.withLock { $0.ledger.recordWholeSetChange() } }
        return try reconcile(.unsavedChanges, replicas: object.ledger.replicas())
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
