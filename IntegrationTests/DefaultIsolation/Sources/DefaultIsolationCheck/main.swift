import AppSettings
import AppSettingsTesting
import Foundation
import Observation
import Synchronization

// Runs the declarations of Settings.swift against a scratch suite, from main-actor code, from an
// `@Observable` model and from `Task.detached`; exits with status 1 if anything is wrong.

var failures = 0

func check(_ condition: Bool, _ message: String) {
    if !condition {
        failures += 1
        print("FAILED: \(message)")
    }
}

/// Removes a scratch suite with the files corelibs and the library keep for it.
func removeSuite(named name: String) {
    do {
        try AppSettingsStore.suite(name).remove()
    } catch {
        check(false, "could not remove the scratch suite: \(error)")
    }
}

/// An `@Observable` model of the app that reads and writes settings.
@Observable final class SoundModel {
    let settings: MySettings

    init(settings: MySettings) {
        self.settings = settings
    }

    var level: Float { settings.soundLevel }

    func mute() {
        settings.soundLevel = 0
        settings.audio.muted = true
    }
}

let suiteName = "DefaultIsolationCheck-\(UUID().uuidString)"
defer { removeSuite(named: suiteName) }
let suite = UserDefaults(appGroup: suiteName)!  // as the README makes App Group suites

// Schema 0 stores "volume"; MySettings (schema 1) migrates it to "soundLevel".
let old = Settings.SchemaZeroSettings(userDefaults: suite)
old.volume = 0.4
try old.synchronizeToUserDefaults()

// Main-actor code: create, read, validate, synchronize, reset.
let settings = MySettings(userDefaults: suite)
check(settings.lastLoadError == nil, "load error: \(String(describing: settings.lastLoadError))")
check(settings.userDefaultsKey == "AppSettings.MyAppsSettings", "key \(settings.userDefaultsKey)")
check(settings.soundLevel == 0.4, "migrated soundLevel \(settings.soundLevel)")
check(!settings.settingNames.contains("constLastSeenBuild"), "const setting listed")
check(settings.settingNames.contains("window"), "stored name: \(settings.settingNames)")
settings.soundLevel = 5
check(settings.soundLevel == 1, "validate: gave \(settings.soundLevel)")
settings.theme = .dark
settings.windowFrame = WindowFrame(width: 100, height: 300)
settings.accentColor = AccentColor(hue: 0.25)
settings.highlight = try HexColor(hex: "#00ff00")
settings.audio.outputDevice = "USB"
settings.constLastSeenBuild = 42
try settings.synchronizeToUserDefaults()
settings.theme = .light
try settings.resetToUserDefaults()
check(settings.theme == .dark, "resetToUserDefaults kept \(settings.theme)")
check(settings.windowFrame.width == 200, "checkAfterDecode gave width \(settings.windowFrame.width)")

let reloaded = MySettings(userDefaults: suite)
check(reloaded.theme == .dark && reloaded.soundLevel == 1, "reloaded \(reloaded.theme) \(reloaded.soundLevel)")
check(reloaded.accentColor?.hue == 0.25, "NSSecureCoding value \(String(describing: reloaded.accentColor?.hue))")
check(reloaded.audio.outputDevice == "USB", "nested object \(reloaded.audio.outputDevice)")
check(reloaded.highlight.hex == "#00ff00", "converted value \(reloaded.highlight.hex)")
check(reloaded.constLastSeenBuild == 0, "const setting was stored")

// Settings as documents: one set to JSON and back, all or nothing.
let document = try reloaded.jsonRepresentation()
let restored = MySettings(userDefaults: suite)
restored.theme = .light
try restored.update(fromJSON: document)
check(restored.theme == .dark && restored.audio.outputDevice == "USB", "document round trip")
try restored.update(fromJSON: Data(#"{"theme": "light"}"#.utf8), replacingAll: true)
check(restored.theme == .light && restored.audio.outputDevice == "Headphones", "replacing document")
reloaded.resetToDeveloperDefaults()
check(reloaded.audio.outputDevice == "Headphones", "resetToDeveloperDefaults override")

// Where values come from (README "Overrides", DocC "Overriding Settings"): no override is given to this process.
check(settings.source(of: \.theme) == .stored, "source of theme: \(settings.source(of: \.theme))")
check(settings.source(of: \MySettings.audio.outputDevice) == .stored, "source of a nested setting")
check(settings.ignoredOverrides.isEmpty, "ignored overrides: \(settings.ignoredOverrides)")
for ignored in settings.ignoredOverrides { print(ignored) }

// `shared` is bound to UserDefaults.standard: only read it here, never write the real domain.
check(MySettings.shared === MySettings.shared, "shared is not one instance")
try MySettings.shared.resetToUserDefaults()
try MySettings.shared.synchronizeToUserDefaults()  // nothing changed: writes nothing

// Observation, directly and through an @Observable model. `onChange` is a nonisolated `@Sendable`
// closure: it cannot touch main-actor state, so it records what it saw behind a lock.
let settingChanged = Mutex(false)
withObservationTracking {
    _ = settings.soundLevel
} onChange: {
    settingChanged.withLock { $0 = true }
}
let model = SoundModel(settings: settings)
let modelChanged = Mutex(false)
withObservationTracking {
    _ = model.level
} onChange: {
    modelChanged.withLock { $0 = true }
}
model.mute()
check(settingChanged.withLock { $0 }, "withObservationTracking on a setting: no change seen")
check(modelChanged.withLock { $0 }, "withObservationTracking through the @Observable model: no change seen")

// Other threads: the settings class is nonisolated, so no `await` per access.
let detachedLevel = try await Task.detached {
    settings.soundLevel = 0.25
    settings.windowFrame = WindowFrame(width: 640, height: 480)
    try settings.synchronizeToUserDefaults()
    let other = MySettings(userDefaults: UserDefaults(suiteName: suiteName)!)
    _ = other.source(of: \.soundLevel)
    return (settings.soundLevel, other.soundLevel, other.windowFrame.width)
}.value
check(detachedLevel == (0.25, 0.25, 640), "Task.detached: \(detachedLevel)")

// The main-actor form: its settings are main-actor isolated.
let mainActorSettings = MainActorSettings(userDefaults: suite)
mainActorSettings.volume = 7
try mainActorSettings.synchronizeToUserDefaults()
let detachedVolume = await Task.detached {
    await MainActorSettings(userDefaults: UserDefaults(suiteName: suiteName)!).volume
}.value
check(detachedVolume == 7, "main-actor form: \(detachedVolume)")

try settings.removeFromUserDefaults()
try mainActorSettings.removeFromUserDefaults()

// Syncing across devices, on the simulator: two devices, each with its own suite.
#if canImport(Darwin)
    // The README's launch line; only built: running it needs the iCloud entitlement.
    func startSyncingWithICloud() throws {
        try Settings.EditorSettings.shared.startSyncing(with: NSUbiquitousKeyValueStore.default)
    }
#endif
let phoneSuiteName = "DefaultIsolationCheck-phone-\(UUID().uuidString)"
let laptopSuiteName = "DefaultIsolationCheck-laptop-\(UUID().uuidString)"
defer {
    removeSuite(named: phoneSuiteName)
    removeSuite(named: laptopSuiteName)
}
let cloud = CloudKeyValueStoreSimulator()
let phone = Settings.EditorSettings(userDefaults: UserDefaults(suiteName: phoneSuiteName)!)
let laptop = Settings.EditorSettings(userDefaults: UserDefaults(suiteName: laptopSuiteName)!)
try phone.startSyncing(with: cloud.makeDevice())
try laptop.startSyncing(with: cloud.makeDevice())
cloud.deliverChanges()
phone.theme = .dark
phone.fontSize = 100
try phone.synchronizeToUserDefaults()
cloud.deliverChanges()
check(laptop.theme == .dark && laptop.fontSize == 72, "synced: \(laptop.theme) \(laptop.fontSize)")
laptop.stopSyncing()

// One declaration, every format: the range clamps, the choices and the range are in the schema.
let described = Settings.DescribedSettings(userDefaults: suite)
described.soundLevel = 3
described.retries = 0
check(described.soundLevel == 1 && described.retries == 1, "ranges: \(described.soundLevel) \(described.retries)")
let schema: Data = Settings.DescribedSettings.jsonSchema()
let schemaText = String(decoding: schema, as: UTF8.self)
check(
    schemaText.contains("\"light\"") && schemaText.contains("Volume of sound effects")
        && schemaText.contains("\"maximum\" : 10"),
    "jsonSchema: \(schemaText)")

// An in-memory store, as a SwiftUI preview makes one: objects of one name share it.
let preview = Settings.MySettings(store: .inMemory("preview"))
preview.theme = .dark
try preview.synchronizeToUserDefaults()
check(Settings.MySettings(store: .inMemory("preview")).theme == .dark, "in-memory store not shared")
check(Settings.MySettings(store: .inMemory("other")).theme == .light, "in-memory stores not apart")

if failures > 0 {
    print("\(failures) check(s) failed")
    // `exit` skips the `defer`s above
    for name in [suiteName, phoneSuiteName, laptopSuiteName] { removeSuite(named: name) }
    exit(1)
}
print("Default isolation check passed")
