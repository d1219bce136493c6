// The settings class the fuzz target loads into: one setting of every supported kind, so that
// every conversion from stored values is reached. Compiled into the AppSettings module together
// with the library sources (see scripts/fuzz.sh), shared by the harness and the corpus generator.

import Foundation

enum FuzzTheme: String, Sendable {
    case light, dark, system
}

extension FuzzTheme: SettingValue {}

enum FuzzSpeed: Int, Codable, Sendable {
    case slow = 1
    case fast = 2
}

extension FuzzSpeed: SettingValue {}

struct FuzzFrame: Codable, Equatable, Sendable {
    var x: Double
    var y: Double
    var title: String
    var tags: [String]
    var when: Date?
}

extension FuzzFrame: SettingValue {}

/// An `NSSecureCoding` class: its values go through the library's own `SecureArchiveDecoder`.
final class FuzzTag: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let weight: Double
    let created: Date?

    init(name: String, weight: Double, created: Date?) {
        self.name = name
        self.weight = weight
        self.created = created
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        self.weight = coder.decodeDouble(forKey: "weight")
        // corelibs reports a missing key as a decoding error, so an optional field is looked up first.
        self.created =
            coder.containsValue(forKey: "created")
            ? coder.decodeObject(of: NSDate.self, forKey: "created") as Date? : nil
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? FuzzTag else { return false }
        return other.name == name && other.weight.bitPattern == weight.bitPattern && other.created == created
    }

    override var hash: Int { name.hashValue }

    func encode(with coder: NSCoder) {
        coder.encode(NSString(string: name), forKey: "name")
        coder.encode(weight, forKey: "weight")
        if let created { coder.encode(created as NSDate, forKey: "created") }
    }
}

extension FuzzTag: SettingValue {}

final class FuzzNestedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 5
    @Setting var muted = false
    @Setting var names: [String] = []
}

final class FuzzSettings: AppSettingsObject, @unchecked Sendable {
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
    @Setting(validate: { min(max($0, 0), 1) }) var float: Float = 0.5
    @Setting var double: Double = 0
    @Setting var string = ""
    @Setting var date = Date(timeIntervalSinceReferenceDate: 0)
    @Setting var data = Data()
    @Setting var url = URL(string: "https://example.com")!
    @Setting var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Setting var optionalString: String? = "default"
    @Setting var optionalInt: Int? = nil
    @Setting var optionalDate: Date? = nil
    @Setting var strings: [String] = []
    @Setting var intSet: Set<Int> = []
    @Setting var doubles: [String: Int] = [:]
    @Setting var nestedArrays: [[Int]] = []
    @Setting var optionalArray: [String?] = []
    @Setting var urls: [URL] = []
    @Setting var theme = FuzzTheme.light
    @Setting var speed = FuzzSpeed.slow
    @Setting var frame = FuzzFrame(x: 0, y: 0, title: "", tags: [], when: nil)
    @Setting var tag = FuzzTag(name: "none", weight: 0, created: nil)
    @Setting var nested = FuzzNestedSettings()
    @Setting var nestedList: [FuzzNestedSettings] = []
    @Setting("renamed") var storedUnderAnotherName = 0
    @Setting var constNeverStored = 0

    override var userDefaultsKeyPostfix: String { "Fuzz" }

    override func checkAfterDecode() {
        if int8 < 0 { int8 = 0 }
    }
}

/// A suite with nothing stored: creating the template loads nothing.
let fuzzTemplate = FuzzSettings(userDefaults: UserDefaults(suiteName: "AppSettingsFuzz-\(UUID().uuidString)")!)
