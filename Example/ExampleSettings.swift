import AppSettings
import Foundation

/// The example app's theme: one line makes a raw-value enum storable.
enum Theme: String, CaseIterable, Sendable {
    case light, dark, system
}

extension Theme: SettingValue {}

/// A `Codable` value (not a settings object: stored as one value): one line makes it storable too.
struct WindowFrame: Codable, Equatable, Sendable {
    var width: Double
    var height: Double
}

extension WindowFrame: SettingValue {}

/// A nested settings object (an `AppSettingsObject` declared as a setting): its settings are stored
/// inside its parent's archive, each merged and validated on its own.
final class AudioSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var muted = false
    @Setting var outputDevice = "Built-in Speakers"
}

/// The example app's settings.
final class ExampleSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var dontDimScreen = false
    @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
    @Setting var theme = Theme.light
    @Setting var recentSearches: [String] = []
    @Setting var homePage: URL? = nil
    @Setting var window = WindowFrame(width: 800, height: 600)
    @Setting var audio = AudioSettings()
    @Setting var constLaunchCount = 0  // `const` prefix: never stored
    var constCachedVolume: Float = 0  // plain stored property: never stored

    override var userDefaultsKeyPostfix: String { "ExampleSettings" }

    override func resetToDeveloperDefaults() {
        super.resetToDeveloperDefaults()
        soundLevel = 0.5
    }

    override func checkAfterDecode() {
        // Consistency across settings after a load: a window is never smaller than 200 × 200.
        if window.width < 200 || window.height < 200 {
            window = WindowFrame(width: max(window.width, 200), height: max(window.height, 200))
        }
    }
}
