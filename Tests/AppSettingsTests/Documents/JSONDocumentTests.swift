import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

/// A `Codable` value whose JSON form differs from its stored form: a date, `Data`, a non-finite number.
struct Appointment: Codable, Equatable, Sendable {
    var when: Date
    var attachment: Data
    var weight: Double
    var note: String?
}

extension Appointment: SettingValue {}

/// Values whose JSON form is text: dates to the microsecond, collections of them, non-finite numbers.
final class TextFormSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var preciseDate = Date(timeIntervalSinceReferenceDate: 0)
    @Setting var optionalDate: Date? = nil
    @Setting var dates: [Date] = []
    @Setting var datesByName: [String: Date] = [:]
    @Setting var ids: Set<UUID> = []
    @Setting var blobs: [Data] = []
    @Setting var notANumber = 0.0
    @Setting var infinity: Float = 0
    @Setting var appointment = Appointment(when: Date(timeIntervalSince1970: 0), attachment: Data(), weight: 0)
    @Setting var themes: [Theme] = []
    @Setting var levels: [String: Int8] = [:]
}

/// Schema version 2 renamed `fontSize` (an Int) to `textSize` (a Double, 1.5 times as large).
final class MigratedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var textSize = 12.0
    @Setting var title = ""

    override class var schemaVersion: Int { 2 }

    override func migrate(_ values: inout [String: Any], fromSchemaVersion version: Int) throws {
        if version < 2, let fontSize = values.removeValue(forKey: "fontSize") as? Int {
            values["textSize"] = Double(fontSize) * 1.5
        }
    }
}

/// `jsonRepresentation()` and `update(fromJSON:replacingAll:)`: every value kind round trips,
/// partial and replacing imports, refusals that change nothing, validation, migration.
@Suite("Settings as JSON documents")
struct JSONDocumentTests {
    let suite = TemporarySuite.forSettings()

    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A document's text without its `tag` line: Foundation's `NSKeyedArchiver`, which archives an
    /// `NSSecureCoding` value, does not write the same bytes twice on Linux.
    private func comparable(_ document: Data) -> String {
        String(decoding: document, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("  \"tag\"") }
            .joined(separator: "\n")
    }

    @Test("every value kind round trips through a document")
    func everyValueKindRoundTrips() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        SettingValueTests.fill(settings)
        let document = try settings.jsonRepresentation()

        let other = AllTypesSettings(userDefaults: suite.another())
        #expect(other.int == 0)
        try other.update(fromJSON: document)
        SettingValueTests.expectFilled(other)
        #expect(other == settings)
        #expect(other.hasUnsavedChanges)
        #expect(comparable(try other.jsonRepresentation()) == comparable(document))
    }

    @Test("the document is the inspector's form of the set")
    func documentIsTheInspectorsForm() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        SettingValueTests.fill(settings)
        let document = try settings.jsonRepresentation()
        StoredSettingsInspectorTests.expectAllTypes(try object(document))
        // Stored, the inspector shows the same values.
        try settings.synchronizeToUserDefaults()
        let stored = try #require(
            StoredSettingsInspector.jsonObject(of: suite.another())["AppSettings.AllTypesSettings"] as? [String: Any])
        #expect(comparable(Data(StoredSettingsInspector.jsonText(stored).utf8)) == comparable(document))
        // Pretty printed, keys sorted as JSONSerialization sorts them.
        let text = String(decoding: document, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "{\n  \"$schemaVersion\" : 0,\n  \"audio\" : {\n    \"muted\" : true,\n    \"volume\" : 11\n  },"))
    }

    @Test("const settings are never in a document, nor settings the class does not declare")
    func constSettingsAreLeftOut() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.constLastSeenBuild = 7
        settings.constellation = "Lyra"
        let values = try object(try settings.jsonRepresentation())
        #expect(values["constLastSeenBuild"] == nil)
        #expect(values["constellation"] as? String == "Lyra")
        #expect(Set(values.keys) == Set(settings.settingNames + ["$schemaVersion"]))

        #expect(throws: AppSettingsError.unknownSetting(key: settings.userDefaultsKey, setting: "constLastSeenBuild")) {
            try settings.update(fromJSON: Data(#"{"constLastSeenBuild": 3}"#.utf8))
        }
        #expect(settings.constLastSeenBuild == 7)
    }

    @Test("dates to the microsecond, Data, UUID sets, non-finite numbers and Codable values round trip")
    func textFormsRoundTrip() throws {
        let settings = TextFormSettings(userDefaults: suite.userDefaults)
        settings.preciseDate = Date(timeIntervalSinceReferenceDate: 786_000_000.123456)
        settings.optionalDate = Date(timeIntervalSince1970: -1_000.5)
        settings.dates = [Date(timeIntervalSinceReferenceDate: 1.000001), Date(timeIntervalSinceReferenceDate: -0.25)]
        settings.datesByName = ["launch": Date(timeIntervalSinceReferenceDate: 12_345.678)]
        settings.ids = [UUID(), UUID()]
        settings.blobs = [Data(), Data((0...255).map { UInt8($0) })]
        settings.notANumber = .nan
        settings.infinity = -.infinity
        settings.appointment = Appointment(
            when: Date(timeIntervalSinceReferenceDate: 5.5), attachment: Data([1, 2]), weight: .infinity, note: "x")
        settings.themes = [.dark, .system]
        settings.levels = ["low": -128, "high": 127]
        let document = try settings.jsonRepresentation()
        let values = try object(document)
        #expect(values["optionalDate"] as? String == "1969-12-31T23:43:19.500Z")
        #expect(values["notANumber"] as? String == "nan")
        #expect(values["themes"] as? [String] == ["dark", "system"])

        let other = TextFormSettings(userDefaults: suite.another())
        try other.update(fromJSON: document)
        #expect(other.preciseDate == settings.preciseDate)
        #expect(other.optionalDate == settings.optionalDate)
        #expect(other.dates == settings.dates)
        #expect(other.datesByName == settings.datesByName)
        #expect(other.ids == settings.ids)
        #expect(other.blobs == settings.blobs)
        #expect(other.notANumber.isNaN)
        #expect(other.infinity == -.infinity)
        #expect(other.appointment == settings.appointment)
        #expect(other.themes == [.dark, .system])
        #expect(other.levels == settings.levels)
        #expect(try other.jsonRepresentation() == document)
    }

    @Test("dates are read in any time zone and with any digits of fractional seconds")
    func datesInOtherForms() throws {
        let settings = TextFormSettings(userDefaults: suite.userDefaults)
        try settings.update(
            fromJSON: Data(#"{"preciseDate": "2001-01-01T02:00:01.25+02:00", "optionalDate": null}"#.utf8))
        #expect(settings.preciseDate == Date(timeIntervalSinceReferenceDate: 1.25))
        #expect(settings.optionalDate == nil)
    }

    @Test("a partial document changes only the settings it names, nested ones included")
    func partialUpdate() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        SettingValueTests.fill(settings)
        try settings.synchronizeToUserDefaults()
        try settings.update(fromJSON: Data(#"{"int": 5, "audio": {"volume": 3}}"#.utf8))
        #expect(settings.int == 5)
        #expect(settings.audio.volume == 3)
        #expect(settings.audio.muted == true)
        #expect(settings.string == "Grüße, 世界 🌍")
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        let reloaded = AllTypesSettings(userDefaults: suite.another())
        #expect(reloaded.int == 5)
        #expect(reloaded.audio.volume == 3)
    }

    @Test("replacingAll puts the settings the document does not name back to their developer defaults")
    func replacingUpdate() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.dontDimScreen = true
        settings.soundLevel = 0.9
        settings.theme = .dark
        try settings.update(fromJSON: Data(#"{"theme": "system"}"#.utf8), replacingAll: true)
        #expect(settings.theme == .system)
        #expect(settings.dontDimScreen == false)
        // The override of resetToDeveloperDefaults() is part of the developer defaults.
        #expect(settings.soundLevel == 0.5)

        let all = AllTypesSettings(userDefaults: suite.another())
        SettingValueTests.fill(all)
        try all.update(fromJSON: Data(#"{"audio": {"muted": true}}"#.utf8), replacingAll: true)
        #expect(all.audio.muted == true)
        #expect(all.audio.volume == 5)
        #expect(all.int == 0)
    }

    /// A document that must be refused, and the error it must give.
    private func expectRefused(
        _ json: String,
        _ expected: (AppSettingsError) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        SettingValueTests.fill(settings)
        try settings.synchronizeToUserDefaults()
        let filled = AllTypesSettings(userDefaults: suite.another())
        SettingValueTests.fill(filled)
        do {
            try settings.update(fromJSON: Data(json.utf8))
            Issue.record("\(json) was accepted", sourceLocation: sourceLocation)
        } catch let error as AppSettingsError {
            #expect(expected(error), "\(json): \(error)", sourceLocation: sourceLocation)
        }
        do {
            try settings.update(fromJSON: Data(json.utf8), replacingAll: true)
            Issue.record("\(json) was accepted with replacingAll", sourceLocation: sourceLocation)
        } catch {}
        #expect(settings == filled, sourceLocation: sourceLocation)
        #expect(!settings.hasUnsavedChanges, sourceLocation: sourceLocation)
    }

    /// What an `Int` accepts, in the words of every refusal.
    static let intRange = "an integer in -9223372036854775808...9223372036854775807"

    @Test("unknown names, wrong types, malformed JSON and out-of-range integers change nothing")
    func refusalsChangeNothing() throws {
        let key = "AppSettings.AllTypesSettings"
        try expectRefused(#"{"int": 1, "volume": 3}"#) { $0 == .unknownSetting(key: key, setting: "volume") }
        try expectRefused(#"{"audio": {"bass": 3}}"#) { $0 == .unknownSetting(key: key, setting: "audio.bass") }
        try expectRefused(#"{"$unreadable": "x"}"#) { $0 == .unknownSetting(key: key, setting: "$unreadable") }
        try expectRefused(#"{"int": 1, "string": 5}"#) {
            $0 == .invalidJSONValue(setting: "string", expected: "a string", found: "5")
        }
        try expectRefused(#"{"bool": "yes"}"#) {
            if case .invalidJSONValue("bool", "a Boolean", _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"int": true}"#) {
            $0 == .invalidJSONValue(setting: "int", expected: Self.intRange, found: "true")
        }
        try expectRefused(#"{"bool": 1}"#) {
            $0 == .invalidJSONValue(setting: "bool", expected: "a Boolean", found: "1")
        }
        try expectRefused(#"{"float": 1e300}"#) {
            if case .invalidJSONValue("float", #"a number in Float's range (or "nan", "inf", "-inf")"#, _) = $0 {
                return true
            }
            return false
        }
        try expectRefused(#"{"uint8": 256}"#) {
            $0 == .invalidJSONValue(setting: "uint8", expected: "an integer in 0...255", found: "256")
        }
        try expectRefused(#"{"int8": -129}"#) {
            $0 == .invalidJSONValue(setting: "int8", expected: "an integer in -128...127", found: "-129")
        }
        try expectRefused(#"{"int": 1.5}"#) {
            $0 == .invalidJSONValue(setting: "int", expected: Self.intRange, found: "1.5")
        }
        try expectRefused(#"{"uint64": -1}"#) {
            $0 == .invalidJSONValue(setting: "uint64", expected: "an integer in 0...18446744073709551615", found: "-1")
        }
        try expectRefused(#"{"int64": 9223372036854775808}"#) {
            if case .invalidJSONValue("int64", Self.intRange, _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"date": "yesterday"}"#) {
            if case .invalidJSONValue("date", "an ISO 8601 date and time with a time zone", _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"data": "not base64!"}"#) {
            if case .invalidJSONValue("data", "canonical base64 text", _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"theme": "purple"}"#) {
            if case .invalidJSONValue("theme", #"one of "light", "dark", "system""#, _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"audio": 3}"#) {
            if case .invalidJSONValue("audio", _, "3") = $0 { return true }
            return false
        }
        try expectRefused(#"{"audio": {"volume": "loud"}}"#) {
            if case .invalidJSONValue("audio.volume", Self.intRange, _) = $0 { return true }
            return false
        }
        try expectRefused(#"{"strings": ["a", 1]}"#) {
            if case .invalidJSONValue("strings[1]", "a string", "1") = $0 { return true }
            return false
        }
        try expectRefused(#"{"optionalInt": "7"}"#) {
            if case .invalidJSONValue("optionalInt", _, _) = $0 { return true }
            return false
        }
        // A `Codable` value's members, as its schema lists them (issue 48).
        try expectRefused(#"{"frame": {"x": 1}}"#) {
            if case .invalidJSONValue("frame", "an object with the members title, x, y (missing 'title')", _) = $0 {
                return true
            }
            return false
        }
        try expectRefused(#"{"int": 1,"#) {
            if case .malformedJSON = $0 { return true }
            return false
        }
        try expectRefused(#"[1, 2]"#) {
            if case .malformedJSON = $0 { return true }
            return false
        }
        try expectRefused(#"{"$schemaVersion": "one"}"#) {
            if case .malformedJSON = $0 { return true }
            return false
        }
    }

    @Test("validate: and checkAfterDecode() run on the document's values")
    func validationRuns() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        try settings.update(fromJSON: Data(#"{"soundLevel": 5}"#.utf8))
        #expect(settings.soundLevel == 1)

        let checked = CheckedSettings(userDefaults: suite.userDefaults)
        let decodes = checked.constDecodeCount
        try checked.update(fromJSON: Data(#"{"minimum": 20}"#.utf8))
        #expect(checked.minimum == 20)
        #expect(checked.maximum == 20)
        #expect(checked.constDecodeCount == decodes + 1)
    }

    @Test("an older $schemaVersion is migrated; the current one and none are not")
    func migration() throws {
        let settings = MigratedSettings(userDefaults: suite.userDefaults)
        try settings.update(fromJSON: Data(#"{"$schemaVersion": 1, "fontSize": 10, "title": "old"}"#.utf8))
        #expect(settings.textSize == 15)
        #expect(settings.title == "old")

        try settings.update(fromJSON: Data(#"{"$schemaVersion": 2, "textSize": 11}"#.utf8))
        #expect(settings.textSize == 11)
        #expect(throws: AppSettingsError.unknownSetting(key: settings.userDefaultsKey, setting: "fontSize")) {
            try settings.update(fromJSON: Data(#"{"fontSize": 10}"#.utf8))
        }
        #expect(settings.textSize == 11)
        let values = try object(try settings.jsonRepresentation())
        #expect(values["$schemaVersion"] as? Int == 2)
    }

    @Test("settings objects inside collections round trip, and their wrong values are refused")
    func settingsObjectsInCollections() throws {
        let outputs = NestedSettingsTests.Outputs(userDefaults: suite.userDefaults)
        let first = AudioSettings(userDefaults: suite.userDefaults)
        first.volume = 1
        let second = AudioSettings(userDefaults: suite.userDefaults)
        second.muted = true
        outputs.devices = [first, second]
        let document = try outputs.jsonRepresentation()
        let values = try object(document)
        #expect((values["devices"] as? [[String: Any]])?.first?["volume"] as? Int == 1)

        let other = NestedSettingsTests.Outputs(userDefaults: suite.another())
        try other.update(fromJSON: document)
        #expect(other.devices.map(\.volume) == [1, 5])
        #expect(other.devices.map(\.muted) == [false, true])
        #expect(throws: AppSettingsError.self) {
            try other.update(fromJSON: Data(#"{"devices": [{"volume": "loud"}]}"#.utf8))
        }
        #expect(throws: AppSettingsError.self) {
            try other.update(fromJSON: Data(#"{"devices": [{"bass": 1}]}"#.utf8))
        }
        #expect(other.devices.map(\.volume) == [1, 5])
    }

    @Test("a document is an unsaved change, announced once")
    func documentIsAnUnsavedChange() async throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        try settings.synchronizeToUserDefaults()
        var changes = settings.changes.makeAsyncIterator()
        try settings.update(fromJSON: Data(#"{"theme": "dark", "dontDimScreen": true}"#.utf8))
        #expect(settings.hasUnsavedChanges)
        #expect(await changes.next() == .settingsChanged(["dontDimScreen", "theme"]))
        #expect(MySettings(userDefaults: suite.another()).theme == .light)
        try settings.synchronizeToUserDefaults()
        #expect(MySettings(userDefaults: suite.another()).theme == .dark)
    }
}
