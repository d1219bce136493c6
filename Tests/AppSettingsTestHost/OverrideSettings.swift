import AppSettings
import Foundation

enum HostTheme: String { case light, dark }
extension HostTheme: SettingValue {}

struct HostFrame: Codable, Equatable {
    var width: Double
    var height: Double
}
extension HostFrame: SettingValue {}

final class HostAudio: AppSettingsObject, @unchecked Sendable {
    @Setting var volume: Int8 = 5
    @Setting var muted = false
}

/// A setting of each kind an override parses, for the `overrides` command.
final class OverrideSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var enabled = false
    @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
    @Setting var volume: Int8 = 3
    @Setting var name = "none"
    @Setting var start = Date(timeIntervalSince1970: 0)
    @Setting var homePage: URL? = nil
    @Setting var id = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Setting var theme = HostTheme.light
    @Setting var tags: [String] = []
    @Setting var numbers: Set<Int> = []
    @Setting var limits: [String: Int] = [:]
    @Setting var frame = HostFrame(width: 1, height: 1)
    @Setting var audio = HostAudio()
    @Setting var precedence = "developer default"

    override var userDefaultsKeyPostfix: String { hostKeyPostfix }

    /// Each setting as read (JSON-ready) and its source, by stored name.
    var readings: [String: (value: Any, source: SettingSource)] {
        [
            "enabled": (enabled, source(of: \.enabled)),
            "soundLevel": (Double(soundLevel), source(of: \.soundLevel)),
            "volume": (Int(volume), source(of: \.volume)),
            "name": (name, source(of: \.name)),
            "start": (ISO8601DateFormatter().string(from: start), source(of: \.start)),
            "homePage": (homePage?.absoluteString ?? NSNull(), source(of: \.homePage)),
            "id": (id.uuidString, source(of: \.id)),
            "theme": (theme.rawValue, source(of: \.theme)),
            "tags": (tags, source(of: \.tags)),
            "numbers": (numbers.sorted(), source(of: \.numbers)),
            "limits": (limits, source(of: \.limits)),
            "frame": ([frame.width, frame.height], source(of: \.frame)),
            "audio.volume": (Int(audio.volume), source(of: \.audio.volume)),
            "audio.muted": (audio.muted, source(of: \.audio.muted)),
            "precedence": (precedence, source(of: \.precedence)),
        ]
    }
}
