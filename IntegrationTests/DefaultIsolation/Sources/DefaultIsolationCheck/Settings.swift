import AppSettings
import Foundation

// This target is built as Xcode 26 builds a new app target: default actor isolation `MainActor`,
// `NonisolatedNonsendingByDefault` and `InferIsolatedConformances` (see Package.swift). Every
// declaration form that the README shows is here, in the form that compiles in such a target.

/// A raw-value enum of the app target, main-actor isolated like every type here. Its
/// `SettingValue` conformance is nonisolated (all its witnesses are the library's), so the
/// README's one line works unchanged.
enum Theme: String, CaseIterable {
    case light, dark
}

extension Theme: SettingValue {}

/// A `Codable` value, declared `nonisolated` so that its synthesized `Codable` conformance is not
/// main-actor isolated (the library encodes it on whatever thread synchronizes). The conformance is
/// in a `nonisolated extension`: a plain extension would be main-actor isolated, and so would the
/// conformance it declares.
nonisolated struct WindowFrame: Codable, Equatable {
    var width = 800.0
    var height = 600.0
}

nonisolated extension WindowFrame: SettingValue {}

/// An `NSSecureCoding` class, stored as a nested archive; the conformance in the declaration.
nonisolated final class AccentColor: NSObject, NSSecureCoding, SettingValue {
    static let supportsSecureCoding = true
    let hue: Double

    init(hue: Double) {
        self.hue = hue
    }

    init?(coder: NSCoder) {
        hue = coder.decodeDouble(forKey: "hue")
    }

    func encode(with coder: NSCoder) {
        coder.encode(hue, forKey: "hue")
    }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? AccentColor)?.hue == hue
    }

    override var hash: Int { hue.hashValue }
}

/// A type stored as another setting type through two conversions (`SettingRepresentation`). Its
/// representation is in a `nonisolated extension`, so that it is not main-actor isolated.
nonisolated struct HexColor: Equatable {
    var hex = "#ff8800"

    init(hex: String) throws {
        guard hex.hasPrefix("#") else { throw CocoaError(.formatting) }
        self.hex = hex
    }

    init() {}
}

nonisolated extension HexColor: SettingValue {
    static var settingRepresentation: SettingRepresentation {
        .converted(HexColor.self, to: String.self, storing: { $0.hex }, reading: { try HexColor(hex: $0) })
    }
}

/// The settings classes, in a `nonisolated` namespace: a type nested in a nonisolated type gets no
/// default main-actor isolation, so the classes are declared exactly as in a nonisolated module
/// and their settings are usable from any thread.
nonisolated enum Settings {
    final class AudioSettings: AppSettingsObject, @unchecked Sendable {
        @Setting var muted = false
        @Setting var outputDevice = "Built-in Speakers"
    }

    final class MySettings: AppSettingsObject, @unchecked Sendable {
        @Setting var dontDimScreen = false
        @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
        @Setting var theme = Theme.light
        @Setting var constLastSeenBuild = 0
        @Setting("window") var windowFrame = WindowFrame()
        @Setting var accentColor: AccentColor? = nil
        @Setting var highlight = HexColor()
        @Setting var audio = AudioSettings()
        var cache = 0  // a plain stored property: never stored

        override var userDefaultsKeyPostfix: String { "MyAppsSettings" }

        override class var schemaVersion: Int { 1 }

        override func migrate(_ values: inout [String: Any], fromSchemaVersion: Int) throws {
            // Schema 0 called the sound level "volume".
            if fromSchemaVersion < 1, let volume = values.removeValue(forKey: "volume") {
                values["soundLevel"] = volume
            }
        }

        override func resetToDeveloperDefaults() {
            super.resetToDeveloperDefaults()
            audio.outputDevice = "Headphones"
        }

        override func checkAfterDecode() {
            if windowFrame.width < 200 { windowFrame.width = 200 }
        }
    }

    /// The README's synced settings (DocC: Syncing Across Devices).
    final class EditorSettings: AppSettingsObject, @unchecked Sendable {
        @Setting(syncs: true) var theme = Theme.light  // follows the user
        @Setting(syncs: true, validate: { min(max($0, 8), 72) }) var fontSize = 14
        @Setting var windowFrame = WindowFrame()  // stays on this device
    }

    /// The declared ranges, choices and descriptions (DocC: One Declaration, Every Format).
    final class DescribedSettings: AppSettingsObject, @unchecked Sendable {
        @Setting(in: 0...1, description: "Volume of sound effects") var soundLevel: Float = 0.7
        @Setting(description: "Appearance") var theme = Theme.light
        @Setting(in: 1...10) var retries = 3
    }

    /// Schema 0 of ``MySettings``, to exercise `migrate`.
    final class SchemaZeroSettings: AppSettingsObject, @unchecked Sendable {
        @Setting var volume: Float = 0.7
        override var userDefaultsKeyPostfix: String { "MyAppsSettings" }
    }
}

/// The shorter name at the top level: a type alias has no isolation of its own.
typealias MySettings = Settings.MySettings

/// The other form that compiles: a main-actor class whose overrides and required initializers are
/// marked `nonisolated` one by one. Its settings are main-actor isolated (other threads reach them
/// with `await`), which is why the README recommends the namespace.
final class MainActorSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 5

    nonisolated override var userDefaultsKeyPostfix: String { "MainActorSettings" }

    nonisolated override func checkAfterDecode() {}

    nonisolated required init(userDefaults: UserDefaults = .standard) {
        super.init(userDefaults: userDefaults)
    }

    nonisolated required init?(coder: NSCoder) {
        super.init(coder: coder)
    }
}
