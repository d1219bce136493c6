import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

/// A `Codable` value of two integers (issue 48's `frame`).
struct Frame: Codable, Equatable, Sendable {
    var w: Int
    var h: Int
}

extension Frame: SettingValue {}

/// The settings of issue 48's documents.
final class ExactSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var i64: Int64 = 0
    @Setting var i = 0
    @Setting var opt: Int? = nil
    @Setting(in: 1...10) var ranged = 1
    @Setting var small: Int8 = 0
    @Setting var when = Date(timeIntervalSince1970: 0)
    @Setting var frame = Frame(w: 1, h: 2)
    @Setting var real = 0.0
    @Setting(in: 0...1) var volume = 0.5
}

/// A `Codable` enum with associated values: its members' names come from the value.
enum Mode: Codable, Equatable, Sendable {
    case automatic
    case manual(level: Int)
}

extension Mode: SettingValue {}

final class ModeSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var mode = Mode.manual(level: 2)
}

/// A suite named before any test runs, for a nested object's property initializer.
enum SameDomain {
    static let name = "AppSettingsTests-SameDomain-" + UUID().uuidString
    nonisolated(unsafe) static let userDefaults = UserDefaults(suiteName: name)!
}

final class SameDomainAudio: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 5
    override var userDefaultsKeyPostfix: String { "SameDomainAudio" }
}

/// Its nested object's initializer names a store of its own, as `AudioSettings()` names `.standard`.
final class SameDomainSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var level = 1
    @Setting var audio = SameDomainAudio(userDefaults: SameDomain.userDefaults)
}

/// Every number read from its digits, never through `Double`; refusals naming the value as
/// written and what the declaration accepts (issue 48).
@Suite("Exact values: integers from their digits, refusals in the user's terms")
struct ExactValueTests {
    let suite = TemporarySuite.forSettings()

    private func imported(_ text: String) throws -> ExactSettings {
        let settings = ExactSettings(userDefaults: suite.userDefaults)
        try settings.update(fromJSON: Data(text.utf8))
        return settings
    }

    private func refusal(_ text: String) -> AppSettingsError? {
        do {
            _ = try imported(text)
            return nil
        } catch {
            return error as? AppSettingsError
        }
    }

    @Test("integral numbers in any form are stored exactly")
    func integralNumbersAreExact() throws {
        #expect(try imported(#"{"i64": 1234567890123456789.0}"#).i64 == 1_234_567_890_123_456_789)
        #expect(try imported(#"{"i64": 1.234567890123456789e18}"#).i64 == 1_234_567_890_123_456_789)
        #expect(try imported(#"{"i": 9007199254740993.0}"#).i == 9_007_199_254_740_993)
        #expect(try imported(#"{"i": 5e0}"#).i == 5)
        #expect(try imported(#"{"i": 50E-1}"#).i == 5)
        #expect(try imported(#"{"opt": -0.0}"#).opt == 0)
        #expect(try imported(#"{"i64": -9223372036854775808.000}"#).i64 == .min)
        #expect(try imported(#"{"ranged": 1.0e1}"#).ranged == 10)
    }

    @Test("a fraction, however close to an integer, is refused as written")
    func fractionsAreRefusedAsWritten() {
        #expect(
            refusal(#"{"i": 1.00000000000000000001}"#)
                == .invalidJSONValue(
                    setting: "i", expected: "an integer in -9223372036854775808...9223372036854775807",
                    found: "1.00000000000000000001"))
        #expect(
            refusal(#"{"opt": 2.0000000000000000001}"#)
                == .invalidJSONValue(
                    setting: "opt", expected: "an integer in -9223372036854775808...9223372036854775807 or null",
                    found: "2.0000000000000000001"))
    }

    @Test("a refusal says what the declaration accepts, naming the value as written")
    func refusalsInTheUsersTerms() {
        #expect(
            refusal(#"{"ranged": 10.000000000000001}"#)
                == .invalidJSONValue(setting: "ranged", expected: "an integer in 1...10", found: "10.000000000000001"))
        #expect(
            refusal(#"{"ranged": 11}"#)
                == .invalidJSONValue(setting: "ranged", expected: "an integer in 1...10", found: "11"))
        #expect(
            refusal(#"{"small": 9223372036854775807.0}"#)
                == .invalidJSONValue(
                    setting: "small", expected: "an integer in -128...127", found: "9223372036854775807.0"))
        #expect(
            refusal(#"{"when": "2020-02-30T00:00:00Z"}"#)
                == .invalidJSONValue(
                    setting: "when",
                    expected: "an ISO 8601 date and time with a time zone; 2020-02-30 is no day of the calendar",
                    found: #""2020-02-30T00:00:00Z""#))
        let description = refusal(#"{"ranged": 0.5}"#)?.description ?? ""
        #expect(description == "the value for 'ranged' is 0.5, expected an integer in 1...10; nothing was changed")
    }

    @Test("a Codable value's schema lists its members, and the import refuses one it does not have")
    func codableValuesAreDescribed() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: ExactSettings.jsonSchema()) as? [String: Any])
        let frame = try #require((schema["properties"] as? [String: Any])?["frame"] as? [String: Any])
        #expect(frame["type"] as? String == "object")
        #expect(frame["additionalProperties"] as? Bool == false)
        #expect(frame["required"] as? [String] == ["h", "w"])
        let members = try #require(frame["properties"] as? [String: [String: Any]])
        #expect(members.keys.sorted() == ["h", "w"])
        #expect(members["w"]?["type"] as? String == "integer")

        #expect(
            refusal(#"{"frame": {"w": 3, "h": 4, "z": 1}}"#)
                == .invalidJSONValue(
                    setting: "frame", expected: "an object with the members h, w (no member 'z')",
                    found: #"{"h":4,"w":3,"z":1}"#))
        #expect(
            refusal(#"{"frame": {"w": 3}}"#)
                == .invalidJSONValue(
                    setting: "frame", expected: "an object with the members h, w (missing 'h')", found: #"{"w":3}"#))
        #expect(
            refusal(#"{"frame": {"w": "3", "h": 4}}"#)
                == .invalidJSONValue(
                    setting: "frame.w", expected: "an integer in -9223372036854775808...9223372036854775807",
                    found: #""3""#))
        #expect(try imported(#"{"frame": {"w": 3.0, "h": 4e0}}"#).frame == Frame(w: 3, h: 4))
    }

    @Test("a Codable form no reading describes says so in the schema, and the import still checks it")
    func undescribedCodable() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: ModeSettings.jsonSchema()) as? [String: Any])
        let mode = try #require((schema["properties"] as? [String: Any])?["mode"] as? [String: Any])
        #expect((mode["$comment"] as? String)?.contains("cannot describe this value's form") == true, "\(mode)")
        #expect(mode["type"] == nil)
        let settings = ModeSettings(userDefaults: suite.userDefaults)
        try settings.update(fromJSON: Data(#"{"mode": {"manual": {"level": 7}}}"#.utf8))
        #expect(settings.mode == .manual(level: 7))
        #expect(throws: AppSettingsError.self) { try settings.update(fromJSON: Data(#"{"mode": {"fast": {}}}"#.utf8)) }
        #expect(settings.mode == .manual(level: 7))
    }

    @Test("a stored Codable value that does not fit says where and what, in words, not in internal types")
    func codableMismatchInWords() {
        let mismatch = #expect(throws: StoredValueMismatch.self) {
            try Frame.value(from: .dictionary(["w": .string("x"), "h": .integer(1)]))
        }
        #expect(
            mismatch?.description
                == #"expected Frame: at w: expected an integer in -9223372036854775808...9223372036854775807, found "x""#
        )
    }

    @Test("overrides are read as documents are: integers by their digits, NaN in no range", .capturedLibraryLog)
    func overridesReadExactly() {
        let arguments = [
            "-ExactSettings.i", "5.0", "-ExactSettings.i64", "1234567890123456789.0", "-ExactSettings.volume", "nan",
            "-ExactSettings.ranged", "1e30", "-ExactSettings.real", "nan", "-ExactSettings.small", "1.5",
        ]
        let sources = OverrideSources(
            arguments: ["test"] + arguments, environment: [:], managed: .managedAppConfiguration(suite.userDefaults))
        let settings = OverrideSources.$current.withValue(sources) { ExactSettings(userDefaults: suite.userDefaults) }
        #expect(settings.i == 5 && settings.i64 == 1_234_567_890_123_456_789)
        #expect(settings.real.isNaN)  // a Double without a range declares NaN
        #expect(settings.volume == 0.5 && settings.ranged == 1 && settings.small == 0)
        let reasons = Dictionary(uniqueKeysWithValues: settings.ignoredOverrides.map { ($0.setting, $0.reason) })
        #expect(
            reasons == [
                "volume": "expected a number in 0...1", "ranged": "expected an integer in 1...10",
                "small": "expected an integer in -128...127",
            ])
    }

    @Test("the schema's default is what a new object holds, resetToDeveloperDefaults() included")
    func schemaDefaultIsANewObjectsValue() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: MySettings.jsonSchema()) as? [String: Any])
        let soundLevel = try #require((schema["properties"] as? [String: Any])?["soundLevel"] as? [String: Any])
        let fresh = MySettings(userDefaults: suite.userDefaults)
        #expect(fresh.soundLevel == 0.5)
        #expect(soundLevel["default"] as? Double == 0.5)
    }

    @Test(
        "the developer defaults are found without reading a store: a nested object's own set is not read",
        .capturedLibraryLog)
    func developerDefaultsReadNoStore() throws {
        defer { TemporarySuite.remove(suiteNamed: SameDomain.name) }
        let stored = SameDomainAudio(userDefaults: SameDomain.userDefaults)
        stored.volume = 9
        try stored.synchronizeToUserDefaults()
        let settings = SameDomainSettings(userDefaults: SameDomain.userDefaults)
        #if os(Linux) && !APPLE_STAND_INS
            // Found while a save holds its store's lock: a nested object that read its store there
            // would wait for that lock (the Example's second save waited 10 s per nested object).
            let directory = try #require(AppSettingsStore.suite(SameDomain.name).recoveryCopyURL(forKey: "k"))
            let descriptor = open(
                directory.deletingLastPathComponent().appendingPathComponent("domain.lock").path, O_RDWR)
            try #require(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
            defer { close(descriptor) }
        #endif
        let defaults = FileLock.$waitLimit.withValue(0.3) { settings.forms.developerDefaults() }
        #expect(CapturedLibraryLog.lines == [])
        #expect((defaults.slots.last?.nestedObject as? SameDomainAudio)?.volume == 5)
        let schema = try #require(
            try JSONSerialization.jsonObject(with: SameDomainSettings.jsonSchema()) as? [String: Any])
        let audio = try #require((schema["properties"] as? [String: Any])?["audio"] as? [String: Any])
        let volume = try #require((audio["properties"] as? [String: Any])?["volume"] as? [String: Any])
        #expect(volume["default"] as? Int == 5)
    }

    @Test("the number reader: integers from digits, fractions and forms that are no JSON number refused")
    func numberReader() {
        #expect(TextForms.integer(fromNumberText: "18446744073709551615.0") == .unsignedInteger(.max))
        #expect(TextForms.integer(fromNumberText: "18446744073709551616") == nil)
        #expect(TextForms.integer(fromNumberText: "-9223372036854775809") == nil)
        #expect(TextForms.integer(fromNumberText: "0e999999999999") == .integer(0))
        #expect(TextForms.integer(fromNumberText: "1e999999999999") == nil)
        #expect(TextForms.integer(fromNumberText: "1e-999999999999") == nil)
        #expect(TextForms.integer(fromNumberText: "+7") == .integer(7))
        #expect(TextForms.integer(fromNumberText: "07") == nil)
        #expect(TextForms.integer(fromNumberText: "1.") == nil)
        #expect(TextForms.integer(fromNumberText: "1e") == nil)
        #expect(TextForms.integer(fromNumberText: "0x10") == nil)
        #expect(TextForms.realNumber(fromText: "0x1p3") == nil)
        #expect(TextForms.realNumber(fromText: "infinity") == nil)
        #expect(TextForms.realNumber(fromText: "inf") == .infinity)
        #expect(TextForms.realNumber(fromText: "0.1") == 0.1)
    }
}
