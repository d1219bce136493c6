import Foundation
import Testing

@testable import AppSettings

// The public ways a type becomes a setting (`SettingRepresentation`): the three defaults, chosen
// by what the type is, and a conversion to another setting type written by the app.

/// A color stored as its `#rrggbb` text; reading text that is not one throws.
struct HexColor: Equatable, Sendable {
    var red: UInt8, green: UInt8, blue: UInt8

    struct NotAColor: Error, CustomStringConvertible {
        let text: String
        var description: String { "'\(text)' is not a #rrggbb color" }
    }

    init(red: UInt8, green: UInt8, blue: UInt8) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    init(hex: String) throws {
        guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else {
            throw NotAColor(text: hex)
        }
        self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    var hex: String {
        "#" + [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

extension HexColor: SettingValue {
    static var settingRepresentation: SettingRepresentation {
        .converted(HexColor.self, to: String.self, storing: { $0.hex }, reading: { try HexColor(hex: $0) })
    }
}

/// A limit whose conversion to its stored form refuses a value: negative limits cannot be saved.
struct Limit: Equatable, Sendable {
    var value: Int

    struct Negative: Error, CustomStringConvertible {
        var description: String { "a limit cannot be negative" }
    }
}

extension Limit: SettingValue {
    static var settingRepresentation: SettingRepresentation {
        .converted(
            Limit.self, to: Int.self,
            storing: { limit in
                guard limit.value >= 0 else { throw Limit.Negative() }
                return limit.value
            },
            reading: { Limit(value: $0) })
    }
}

/// `RawRepresentable` and `Codable` with a `Codable` form that differs from its raw value: the
/// raw value must win, as it did when the conversions were underscored requirements.
struct CountryCode: RawRepresentable, Codable, Hashable, Sendable {
    var rawValue: String

    private enum CodingKeys: String, CodingKey { case code }

    init(rawValue: String) { self.rawValue = rawValue }

    init(from decoder: any Decoder) throws {
        rawValue = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .code)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rawValue, forKey: .code)
    }
}

extension CountryCode: SettingValue {}

/// A raw-value type stored by its `Codable` form, chosen explicitly (a dictionary, here).
struct CodedCountry: RawRepresentable, Codable, Equatable, Sendable {
    var rawValue: String

    private enum CodingKeys: String, CodingKey { case code }

    init(rawValue: String) { self.rawValue = rawValue }

    init(from decoder: any Decoder) throws {
        rawValue = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .code)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rawValue, forKey: .code)
    }
}

extension CodedCountry: SettingValue {
    static var settingRepresentation: SettingRepresentation { .codable(CodedCountry.self) }
}

/// Equal whatever its `revision`: `==` decides whether an assignment changes anything.
struct Revisioned: Codable, Equatable, Sendable {
    var text: String
    var revision = 0

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.text == rhs.text }
}

extension Revisioned: SettingValue {}

/// A representation written for another type: refused where it is used, naming both types.
struct Misdeclared: Equatable, Sendable {
    var name = "x"
}

extension Misdeclared: SettingValue {
    static var settingRepresentation: SettingRepresentation { .rawValue(Theme.self) }
}

final class RepresentationSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var color = HexColor(red: 255, green: 136, blue: 0)
    @Setting var limit = Limit(value: 3)
    @Setting var country = CountryCode(rawValue: "CH")
    @Setting var codedCountry = CodedCountry(rawValue: "FR")
    @Setting var revisioned = Revisioned(text: "a")
    @Setting var colors: [HexColor] = []
    @Setting var tag = Tag(name: "first")
    @Setting var theme = Theme.light

    override var userDefaultsKeyPostfix: String { "RepresentationSettings" }
}

/// The same key, with the color stored as plain text: writes what `RepresentationSettings` reads.
final class RepresentationSettingsAsText: AppSettingsObject, @unchecked Sendable {
    @Setting var color = "#ff8800"

    override var userDefaultsKeyPostfix: String { "RepresentationSettings" }
}

final class MisdeclaredSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var misdeclared = Misdeclared()
}

@Suite("Setting representations", .capturedLibraryLog)
struct SettingRepresentationTests {
    let suite = TemporarySuite.forSettings()

    @Test func aRawValueTypeIsStoredByItsRawValueEvenWhenCodable() throws {
        #expect(try Theme.storedValue(of: .dark) == .string("dark"))
        // Its Codable form would be a dictionary; the raw value wins, as before.
        #expect(try CountryCode.storedValue(of: CountryCode(rawValue: "DE")) == .string("DE"))
        #expect(try Speed.storedValue(of: .fast) == .integer(2))
        #expect(try Theme.value(from: .string("system")) == .system)
        // The schema of a CaseIterable raw-value type lists its cases.
        #expect(Theme.settingSchemaNode == .choices(.string, [.string("light"), .string("dark"), .string("system")]))
        #expect(CountryCode.settingSchemaNode == .string)
    }

    @Test func aCodableTypeIsStoredByItsPropertyListForm() throws {
        #expect(
            try WindowFrame.storedValue(of: WindowFrame(x: 1, y: 2, title: "t"))
                == .dictionary(["x": .double(1), "y": .double(2), "title": .string("t")]))
        // Chosen explicitly for a type that is RawRepresentable too.
        #expect(
            try CodedCountry.storedValue(of: CodedCountry(rawValue: "IT")) == .dictionary(["code": .string("IT")]))
        #expect(try CodedCountry.value(from: .dictionary(["code": .string("IT")])) == CodedCountry(rawValue: "IT"))
    }

    @Test func anEquatableTypeComparesWithEqualityAndOthersByStoredForm() {
        let settings = RepresentationSettings(userDefaults: suite.userDefaults)
        // Equal by `==` although the stored forms differ: nothing changes.
        settings.revisioned = Revisioned(text: "a", revision: 7)
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.revisioned.revision == 0)
        settings.revisioned = Revisioned(text: "b")
        #expect(settings.hasUnsavedChanges)
    }

    @Test func aSecureCodingClassIsStoredAsANestedArchive() throws {
        guard case .data(let archive) = try Tag.storedValue(of: Tag(name: "n")) else {
            Issue.record("a secure-coding value is stored as data")
            return
        }
        #expect(try Tag.value(from: .data(archive)).name == "n")
        #expect(Tag.settingSchemaNode == .data)
    }

    @Test func everyWayRoundTripsThroughTheStore() throws {
        let settings = RepresentationSettings(userDefaults: suite.userDefaults)
        settings.color = HexColor(red: 1, green: 2, blue: 254)
        settings.limit = Limit(value: 9)
        settings.country = CountryCode(rawValue: "NO")
        settings.codedCountry = CodedCountry(rawValue: "SE")
        settings.colors = [HexColor(red: 0, green: 0, blue: 0), HexColor(red: 255, green: 255, blue: 255)]
        settings.tag = Tag(name: "second")
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()

        let loaded = RepresentationSettings(userDefaults: suite.userDefaults)
        #expect(loaded.lastLoadError == nil)
        #expect(loaded.color == HexColor(red: 1, green: 2, blue: 254))
        #expect(loaded.limit == Limit(value: 9))
        #expect(loaded.country == CountryCode(rawValue: "NO"))
        #expect(loaded.codedCountry == CodedCountry(rawValue: "SE"))
        #expect(loaded.colors == settings.colors)
        #expect(loaded.tag.name == "second")
        #expect(loaded.theme == .dark)
    }

    @Test func aConvertedTypeIsStoredAsItsStoredType() throws {
        #expect(try HexColor.storedValue(of: HexColor(red: 255, green: 136, blue: 0)) == .string("#ff8800"))
        #expect(HexColor.settingSchemaNode == .string)
        // JSON and overrides read the stored type's form, then the conversion.
        #expect(try HexColor.storedValue(fromJSONForm: .string("#000001")) == .string("#000001"))
        #expect(try HexColor.overrideValue(from: .string("#0a0b0c")) == HexColor(red: 10, green: 11, blue: 12))
        #expect(throws: StoredValueMismatch.self) { try HexColor.overrideValue(from: .string("teal")) }

        // What the text class stored is read as a color.
        let text = RepresentationSettingsAsText(userDefaults: suite.userDefaults)
        text.color = "#102030"
        try text.synchronizeToUserDefaults()
        let loaded = RepresentationSettings(userDefaults: suite.userDefaults)
        #expect(loaded.lastLoadError == nil)
        #expect(loaded.color == HexColor(red: 16, green: 32, blue: 48))
    }

    @Test func aConversionThatFailsToReadNamesTheKeyAndSetting() throws {
        let text = RepresentationSettingsAsText(userDefaults: suite.userDefaults)
        text.color = "teal"
        try text.synchronizeToUserDefaults()

        let loaded = RepresentationSettings(userDefaults: suite.userDefaults)
        // The setting keeps its developer default; the others load.
        #expect(loaded.color == HexColor(red: 255, green: 136, blue: 0))
        guard case .unreadableSettings(let key, let names, let reasons) = loaded.lastLoadError else {
            Issue.record("expected unreadableSettings, got \(String(describing: loaded.lastLoadError))")
            return
        }
        #expect(key == "AppSettings.RepresentationSettings")
        #expect(names == ["color"])
        #expect(reasons.count == 1)
        let reason = try #require(reasons.first)
        #expect(reason.hasPrefix("color: "))
        #expect(reason.contains("'teal' is not a #rrggbb color"), "\(reason)")
        #expect(reason.contains("expected HexColor"), "\(reason)")
        // The load's log line says the same.
        #expect(CapturedLibraryLog.lines.contains { $0.contains("'teal' is not a #rrggbb color") })
    }

    @Test func aConversionThatFailsToStoreFailsTheSaveNamingTheSetting() throws {
        let settings = RepresentationSettings(userDefaults: suite.userDefaults)
        settings.limit = Limit(value: -1)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .encodingFailed(let key, let setting, let reason) = error as? AppSettingsError else {
                return false
            }
            return key == "AppSettings.RepresentationSettings" && setting == "limit"
                && reason.contains("a limit cannot be negative")
        }
        #expect(settings.hasUnsavedChanges)
    }

    @Test func aRepresentationOfAnotherTypeIsRefusedNamingBoth() throws {
        let settings = MisdeclaredSettings(userDefaults: suite.userDefaults)
        settings.misdeclared = Misdeclared(name: "y")
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .encodingFailed(_, let setting, let reason) = error as? AppSettingsError else { return false }
            return setting == "misdeclared" && reason.contains("describes Theme, not Misdeclared")
        }
    }
}
