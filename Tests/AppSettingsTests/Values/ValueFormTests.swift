import Foundation
import Testing

@testable import AppSettings

/// The disagreements issue 39 lists, one by one: each value is refused (or taken) alike by
/// `update(fromJSON:)`, the schema's check (`SchemaNode.problem`, which the tool runs) and the
/// override reader, and none is changed on the way.
@Suite("What each setting type accepts: one definition")
struct ValueFormTests {
    let suite = TemporarySuite.forSettings()

    private func refused(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> AppSettingsError? {
        let settings = EveryKindSettings(userDefaults: suite.userDefaults)
        let before = try? settings.jsonRepresentation()
        let error = #expect(throws: AppSettingsError.self, "\(json)", sourceLocation: sourceLocation) {
            try settings.update(fromJSON: Data(json.utf8))
        }
        #expect(
            (try? settings.jsonRepresentation()) == before, "\(json) changed the settings",
            sourceLocation: sourceLocation)
        return error
    }

    private func accepted(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EveryKindSettings
    {
        let settings = EveryKindSettings(userDefaults: suite.userDefaults)
        try settings.update(fromJSON: Data(json.utf8))
        return settings
    }

    @Test("an integer that does not fit its type is refused, never rounded into it")
    func integersOutOfRange() throws {
        _ = refused(#"{"wide": -9223372036854775900}"#)
        _ = refused(#"{"wide": -9223372036854775809}"#)
        _ = refused(#"{"wide": 9223372036854775808}"#)
        _ = refused(#"{"wide": 9223372036854775808.0}"#)
        _ = refused(#"{"unsigned": 18446744073709551616}"#)
        #expect(try accepted(#"{"wide": -9223372036854775808}"#).wide == .min)
        #expect(try accepted(#"{"unsigned": 18446744073709551615}"#).unsigned == .max)
        #expect(try accepted(#"{"count": 3.0}"#).count == 3)
    }

    @Test("an impossible date is refused, never moved to a real one")
    func impossibleDates() throws {
        for text in [
            "2020-02-30T00:00:00Z", "2021-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2020-04-31T00:00:00Z",
            "2020-01-01T24:00:00Z", "2020-01-01T23:60:00Z", "2020-01-01T23:59:60Z", "0001-02-29T00:00:00Z",
            "2020-01-01", "2020-01-01T00:00:00z", "2020-01-01t00:00:00Z", "2020-01-01T00:00:00+24:00",
            "2020-13-01T00:00:00Z", "2020-01-01T00:00:00.Z", "10000-01-01T00:00:00Z",
        ] {
            let error = refused(#"{"when": "\#(text)"}"#)
            #expect(error.map { "\($0)" }?.contains("an ISO 8601 date and time with a time zone") == true)
            #expect(SchemaNode.date.problem(with: .string(text), path: "when") != nil, "\(text)")
            #expect(throws: StoredValueMismatch.self, "\(text)") { try Date.overrideValue(from: .string(text)) }
        }
        #expect(try accepted(#"{"when": "2020-02-29T00:00:00Z"}"#).when == Date(timeIntervalSince1970: 1_582_934_400))
        #expect(try accepted(#"{"when": "2000-02-29T12:00:00Z"}"#).when == Date(timeIntervalSince1970: 951_825_600))
        // Offsets up to 23:59, as RFC 3339 allows (Foundation's TimeZone stops at 18 hours).
        #expect(
            try accepted(#"{"when": "2020-01-02T18:00:00+18:00"}"#).when == Date(timeIntervalSince1970: 1_577_923_200))
        #expect(
            try accepted(#"{"when": "2020-01-01T00:00:00-23:59"}"#).when == Date(timeIntervalSince1970: 1_577_923_140))
        // The calendar before 1582 is the proleptic Gregorian, both ways.
        let early = try accepted(#"{"when": "0494-09-01T04:48:48Z"}"#)
        #expect(try JSONSerialization.jsonObject(with: early.jsonRepresentation()) as? [String: Any] != nil)
        #expect(String(decoding: try early.jsonRepresentation(), as: UTF8.self).contains("\"0494-09-01T04:48:48Z\""))
        #expect(try accepted(#"{"when": "0000-12-30T00:00:00Z"}"#).when == .distantPast)
        #expect(try accepted(#"{"when": "0000-02-29T00:00:00Z"}"#).when < .distantPast)
    }

    @Test("a Float's range is checked on the number as written, before it is rounded to a Float")
    func floatRangeBeforeRounding() throws {
        _ = refused(#"{"level": 1.00000001}"#)
        _ = refused(#"{"level": -0.00000001}"#)
        #expect(try accepted(#"{"level": 1}"#).level == 1)
        let slot = try #require(EveryKindSettings(userDefaults: suite.userDefaults).slots.first { $0.name == "level" })
        #expect(throws: StoredValueMismatch.self) { try slot.overrideValue(from: .string("1.00000001")) }
    }

    @Test("Float.greatestFiniteMagnitude exports inside the schema's bound and imports again; 1e400 is refused")
    func realNumberBounds() throws {
        let settings = EveryKindSettings(userDefaults: suite.userDefaults)
        settings.single = .greatestFiniteMagnitude
        settings.real = .greatestFiniteMagnitude
        let export = try settings.jsonRepresentation()
        #expect(String(decoding: export, as: UTF8.self).contains("3.4028235e+38"))
        let again = EveryKindSettings(userDefaults: suite.userDefaults)
        try again.update(fromJSON: export)
        #expect(again.single == .greatestFiniteMagnitude && again.real == .greatestFiniteMagnitude)
        _ = refused(#"{"single": 3.4028236e38}"#)
        let error = refused(#"{"real": 1e400}"#)
        #expect(
            error.map { "\($0)" }?.contains("line 1, column 10: the number 1e400 is beyond the range of Double") == true
        )
    }

    @Test("base64 in its canonical form only; a URL that Foundation reads unchanged, never empty or with a space")
    func base64AndURLs() throws {
        for text in ["AQID=", "AQI===", "AR==", "AQJ=", "*"] { _ = refused(#"{"blob": "\#(text)"}"#) }
        #expect(try accepted(#"{"blob": "AQI="}"#).blob == Data([1, 2]))
        for text in ["", "https://exa mple.com", "1a:b", "a#b#c", "https://example.com/%zz"] {
            _ = refused(#"{"link": "\#(text)"}"#)
            #expect(throws: StoredValueMismatch.self, "\(text)") { try URL.overrideValue(from: .string(text)) }
        }
        #expect(try accepted(#"{"link": "file:///tmp/a%20b"}"#).link.absoluteString == "file:///tmp/a%20b")
    }

    @Test("$schemaVersion 0.0 is version 0; a newer version or a negative one is refused, saying so")
    func schemaVersions() throws {
        #expect(try accepted(#"{"$schemaVersion": 0.0, "count": 2}"#).count == 2)
        let newer = refused(#"{"$schemaVersion": 1}"#)
        #expect(
            newer.map { "\($0)" }?.contains("newer than EveryKindSettings's 0") == true, "\(String(describing: newer))")
        _ = refused(#"{"$schemaVersion": -1}"#)
        let schema = try #require(
            try JSONSerialization.jsonObject(with: MigratedSettings.jsonSchema()) as? [String: Any])
        let version = (schema["properties"] as? [String: Any])?["$schemaVersion"] as? [String: Any]
        #expect(version?["maximum"] as? Int == 2 && version?["minimum"] as? Int == 0)
    }

    @Test("an export holds no value its schema refuses: a date after 9999 or before year 0 is named, not written")
    func exportsFitTheirSchema() throws {
        let settings = EveryKindSettings(userDefaults: suite.userDefaults)
        settings.when = Date(timeIntervalSinceReferenceDate: 1e12)
        let error = #expect(throws: AppSettingsError.self) { try settings.jsonRepresentation() }
        guard case .encodingFailed(_, let setting, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(setting == "when")
        settings.when = Date(timeIntervalSinceReferenceDate: -1e12)
        #expect(throws: AppSettingsError.self) { try settings.jsonRepresentation() }
        settings.when = .distantPast
        #expect(String(decoding: try settings.jsonRepresentation(), as: UTF8.self).contains("0000-12-30T00:00:00Z"))
    }

    @Test("malformed JSON names its line and column; a name given twice is refused")
    func malformedJSON() throws {
        let error = refused("{\n  \"count\": 1,\n  \"flag\": tru\n}")
        #expect(
            error.map { "\($0)" }?.contains("line 3, column 11: expected a value") == true,
            "\(String(describing: error))")
        let twice = refused(#"{"count": 1, "count": 2}"#)
        #expect(twice.map { "\($0)" }?.contains("line 1, column 14: the name \"count\" appears twice") == true)
        #expect(throws: JSONSyntaxError.self) { try JSONReader.value(from: Data(#"["\ud800"]"#.utf8)) }
        #expect(
            try JSONReader.value(from: Data(#"["\ud83d\ude42", "\u00e9"]"#.utf8))
                == .array([.string("🙂"), .string("é")]))
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        #expect(throws: JSONSyntaxError.self) { try JSONReader.value(from: Data(deep.utf8)) }
    }
}
