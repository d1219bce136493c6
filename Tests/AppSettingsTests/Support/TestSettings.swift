import Foundation
import Synchronization

@testable import AppSettings

enum Theme: String, CaseIterable, Sendable {
    case light, dark, system
}

extension Theme: SettingValue {}

/// A raw-value enum that is also Codable: stored by its raw value.
enum Speed: Int, Codable, Sendable {
    case slow = 1
    case fast = 2
}

extension Speed: SettingValue {}

struct WindowFrame: Codable, Equatable, Sendable {
    var x: Double
    var y: Double
    var title: String
}

extension WindowFrame: SettingValue {}

/// Codable but not Equatable: compared by its stored form.
struct Note: Codable, Sendable {
    var text: String
}

extension Note: SettingValue {}

/// An NSSecureCoding class made storable with one line.
final class Tag: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let name: String

    init(name: String) {
        self.name = name
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }

    func encode(with coder: NSCoder) {
        coder.encode(NSString(string: name), forKey: "name")
    }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? Tag)?.name == name
    }

    override var hash: Int { name.hashValue }
}

extension Tag: SettingValue {}

final class AudioSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 5
    @Setting var muted = false
}

/// The settings of the example.
final class MySettings: AppSettingsObject, @unchecked Sendable {
    @Setting var dontDimScreen = false
    @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
    @Setting var theme = Theme.light
    var constCachedVolume: Float = 0
    @Setting var constLastSeenBuild = 0
    @Setting var constellation = "Orion"

    override var userDefaultsKeyPostfix: String { "MyAppsSettings" }

    override func resetToDeveloperDefaults() {
        super.resetToDeveloperDefaults()
        soundLevel = 0.5
    }

    override func checkAfterDecode() {
        soundLevel = min(max(soundLevel, 0), 1)
    }
}

/// One setting of every built-in kind.
final class AllTypesSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var bool = false
    @Setting var int = 0
    @Setting var int8: Int8 = 0
    @Setting var int16: Int16 = 0
    @Setting var int32: Int32 = 0
    @Setting var int64: Int64 = 0
    @Setting var uint: UInt = 0
    @Setting var uint8: UInt8 = 0
    @Setting var uint16: UInt16 = 0
    @Setting var uint32: UInt32 = 0
    @Setting var uint64: UInt64 = 0
    @Setting var float: Float = 0
    @Setting var double: Double = 0
    @Setting var string = ""
    @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
    @Setting var data = Data()
    @Setting var url = URL(string: "https://example.com")!
    @Setting var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Setting var optionalString: String? = "default"
    @Setting var optionalInt: Int? = nil
    @Setting var strings: [String] = []
    @Setting var intSet: Set<Int> = []
    @Setting var dictionary: [String: Double] = [:]
    @Setting var nestedArrays: [[Int]] = []
    @Setting var optionalArray: [String?] = []
    @Setting var theme = Theme.light
    @Setting var speed = Speed.slow
    @Setting var frame = WindowFrame(x: 0, y: 0, title: "")
    @Setting var note = Note(text: "")
    @Setting var tag = Tag(name: "none")
    @Setting var audio = AudioSettings()
}

/// A subclass of a subclass: superclass settings come first.
class BaseSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var baseValue = 1
    @Setting var shared = "base"
}

final class DerivedSettings: BaseSettings, @unchecked Sendable {
    @Setting var derivedValue = 2
}

/// Counts its `checkAfterDecode()` calls in a `const` setting, which is never stored.
final class CheckedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var minimum = 0
    @Setting var maximum = 10
    @Setting var constDecodeCount = 0

    override func checkAfterDecode() {
        constDecodeCount += 1
        if maximum < minimum { maximum = minimum }
    }
}

/// Keeps the stored name `soundLevel` while the property validates in a custom setter.
final class RenamedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting("soundLevel") private var storedSoundLevel: Float = 0.7
    @Setting("volume") var loudness = 3

    var soundLevel: Float {
        get { storedSoundLevel }
        set { storedSoundLevel = min(max(newValue, 0), 1) }
    }

    override var userDefaultsKeyPostfix: String { "MyAppsSettings" }
}

/// Counts how often it is created, to prove `shared` is created once.
final class CountedShared: AppSettingsObject, @unchecked Sendable {
    static let initializations = Mutex(0)
    @Setting var value = 1

    required init(userDefaults: UserDefaults = .standard) {
        Self.initializations.withLock { $0 += 1 }
        Thread.sleep(forTimeInterval: 0.01)
        super.init(userDefaults: userDefaults)
    }

    required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override var userDefaultsKeyPostfix: String { "AppSettingsTests.CountedShared" }
}
