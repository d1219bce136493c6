import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

/// Real numbers JSON cannot hold.
final class NonFiniteSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var notANumber = Double.nan
    @Setting var infinity = Double.infinity
    @Setting var negativeInfinity = -Float.infinity
}

/// `StoredSettingsInspector`: every value type in its JSON form, the sets of a domain, a file's
/// contents told apart by content, and damaged input reported, never a trap.
@Suite("Stored settings inspector")
struct StoredSettingsInspectorTests {
    let suite = TemporarySuite()

    /// A filled `AllTypesSettings`, synchronized to the suite.
    private func storedAllTypes() throws -> AllTypesSettings {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        SettingValueTests.fill(settings)
        try settings.synchronizeToUserDefaults()
        return settings
    }

    @Test("every supported value type in its JSON form")
    func everyValueType() throws {
        _ = try storedAllTypes()
        let sets = StoredSettingsInspector.jsonObject(of: suite.another())
        #expect(Array(sets.keys) == ["AppSettings.AllTypesSettings"])
        let values = try #require(sets["AppSettings.AllTypesSettings"] as? [String: Any])
        Self.expectAllTypes(values)
        #expect(JSONSerialization.isValidJSONObject(sets))
    }

    /// What `SettingValueTests.fill` stored, as the inspector shows it.
    static func expectAllTypes(_ values: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        func expect(_ condition: Bool, _ name: String) {
            #expect(condition, "\(name): \(String(describing: values[name]))", sourceLocation: sourceLocation)
        }
        expect(values["$schemaVersion"] as? Int == 0, "$schemaVersion")
        expect(values["bool"] as? Bool == true, "bool")
        expect(values["int"] as? Int == -42, "int")
        expect(values["int8"] as? Int == Int(Int8.min), "int8")
        expect(values["int16"] as? Int == Int(Int16.max), "int16")
        expect(values["int32"] as? Int == -123_456, "int32")
        expect(values["int64"] as? Int == Int(Int64.min), "int64")
        expect(values["uint"] as? Int == 4_000_000_000, "uint")
        expect(values["uint8"] as? Int == 255, "uint8")
        expect(values["uint16"] as? Int == 65_000, "uint16")
        expect(values["uint32"] as? Int == Int(UInt32.max), "uint32")
        expect(values["uint64"] as? UInt64 == .max, "uint64")
        expect(values["float"] as? Double == 0.1, "float")
        expect(values["double"] as? Double == -1.0e300, "double")
        expect(values["string"] as? String == "Grüße, 世界 🌍", "string")
        expect(values["date"] as? String == "2001-01-02T10:17:36.789Z", "date")
        expect(values["data"] as? String == "AAEC/w==", "data")
        expect(values["url"] as? String == "myapp://host/path?query=1#fragment", "url")
        expect(values["uuid"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "uuid")
        expect(values["optionalString"] is NSNull, "optionalString")
        expect(values["optionalInt"] as? Int == 7, "optionalInt")
        expect(values["strings"] as? [String] == ["a", "", "c"], "strings")
        expect(values["intSet"] as? [Int] == [1, 2, 3], "intSet")
        expect(values["dictionary"] as? [String: Double] == ["pi": 3.14, "e": 2.71], "dictionary")
        expect(values["nestedArrays"] as? [[Int]] == [[1, 2], [], [3]], "nestedArrays")
        let optionalArray = values["optionalArray"] as? [Any]
        expect(optionalArray?.count == 3 && optionalArray?[1] is NSNull, "optionalArray")
        expect(optionalArray?[0] as? String == "x" && optionalArray?[2] as? String == "z", "optionalArray")
        expect(values["theme"] as? String == "dark", "theme")
        expect(values["speed"] as? Int == 2, "speed")
        let frame = values["frame"] as? [String: Any]
        expect(frame?["x"] as? Double == 10 && frame?["y"] as? Double == 20.5, "frame")
        expect(frame?["title"] as? String == "Main", "frame")
        expect((values["note"] as? [String: String]) == ["text": "remember"], "note")
        // An NSSecureCoding value is an archive of its own: base64 bytes.
        expect((values["tag"] as? String).flatMap { Data(base64Encoded: $0) }?.isEmpty == false, "tag")
        let audio = values["audio"] as? [String: Any]
        expect(audio?["volume"] as? Int == 11 && audio?["muted"] as? Bool == true, "audio")
        expect(
            values.count == AllTypesSettings(store: .inMemory(UUID().uuidString)).settingNames.count + 1,
            "count")
    }

    @Test("an archive's bytes, and a set asked for by its full key or its postfix")
    func archiveBytesAndKeys() throws {
        let settings = try storedAllTypes()
        let values = try StoredSettingsInspector.jsonObject(
            ofArchive: try TestingHooks(object: settings).archivedBytes())
        Self.expectAllTypes(values)
        for key in ["AppSettings.AllTypesSettings", "AllTypesSettings"] {
            let sets = StoredSettingsInspector.jsonObject(of: suite.userDefaults, key: key)
            #expect(Array(sets.keys) == ["AppSettings.AllTypesSettings"])
        }
        #expect(StoredSettingsInspector.jsonObject(of: suite.userDefaults, key: "Missing").isEmpty)
    }

    @Test("stable text: keys sorted, pretty printed; non-finite numbers as text")
    func stableText() throws {
        let settings = NonFiniteSettings(userDefaults: suite.userDefaults)
        // NaN over NaN is no change (issue 28): a change there and back makes the set unsaved.
        settings.notANumber = 0
        settings.notANumber = .nan
        try settings.synchronizeToUserDefaults()
        let sets = StoredSettingsInspector.jsonObject(of: suite.userDefaults)
        let text = StoredSettingsInspector.jsonText(sets)
        #expect(
            text == """
                {
                  "AppSettings.NonFiniteSettings" : {
                    "$schemaVersion" : 0,
                    "infinity" : "inf",
                    "negativeInfinity" : "-inf",
                    "notANumber" : "nan"
                  }
                }

                """
        )
        #expect(StoredSettingsInspector.jsonText(sets) == text)
    }

    @Test("damaged bytes throw unreadableArchive with the key; one unreadable setting is marked alone")
    func damagedArchives() throws {
        let bytes = try TestingHooks(object: AudioSettings(userDefaults: suite.userDefaults)).archivedBytes()
        for damaged in [Data(), Data("not an archive".utf8), bytes.prefix(bytes.count / 2), Data(bytes.reversed())] {
            #expect {
                _ = try StoredSettingsInspector.jsonObject(ofArchive: damaged, key: "AppSettings.Audio")
            } throws: { error in
                guard case .unreadableArchive(let key, _, let reason)? = error as? AppSettingsError else {
                    return false
                }
                return key == "AppSettings.Audio" && !reason.isEmpty
            }
        }
        var archive = HandMadeArchive()
        let good = archive.add(.string("kept"))
        let bad = archive.object("NSColor", [:])
        let data = archive.finish(root: archive.settingsRoot(["good": good, "bad": bad], schemaVersion: 3))
        let values = try StoredSettingsInspector.jsonObject(ofArchive: data)
        #expect(values["good"] as? String == "kept")
        #expect(values["$schemaVersion"] as? Int == 3)
        let reason = (values["bad"] as? [String: String])?["$unreadable"]
        #expect(reason?.contains("NSColor") == true)
    }

    @Test("a domain: settings keys holding Data; backups listed; other values only when asked for")
    func domainDictionary() throws {
        let bytes = try TestingHooks(object: AudioSettings(userDefaults: suite.userDefaults)).archivedBytes()
        let domain: [String: Any] = [
            "AppSettings.Audio": bytes,
            "AppSettings.Audio.unreadable-1700000000000": Data("damaged".utf8),
            "AppSettings.Text": "written by someone else",
            "Unrelated": bytes,
        ]
        let sets = StoredSettingsInspector.jsonObject(ofDomain: domain)
        #expect(Set(sets.keys) == ["AppSettings.Audio", "AppSettings.Audio.unreadable-1700000000000"])
        #expect((sets["AppSettings.Audio"] as? [String: Any])?["volume"] as? Int == 5)
        let backup = sets["AppSettings.Audio.unreadable-1700000000000"] as? [String: String]
        #expect(backup?["$unreadable"]?.isEmpty == false)
        let text = StoredSettingsInspector.jsonObject(ofDomain: domain, key: "Text")
        #expect((text["AppSettings.Text"] as? [String: String])?["$unreadable"] == "the value is String, not Data")
    }

    @Test("a file's contents: a binary or XML domain file, or an archive, told apart by content")
    func fileContents() throws {
        let bytes = try TestingHooks(object: AudioSettings(userDefaults: suite.userDefaults)).archivedBytes()
        let domain: [String: Any] = ["AppSettings.Audio": bytes, "AppSettings.Other": bytes, "count": 3]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let file = try PropertyListSerialization.data(fromPropertyList: domain, format: format, options: 0)
            let sets = try StoredSettingsInspector.jsonObject(ofFileContents: file)
            #expect(Set(sets.keys) == ["AppSettings.Audio", "AppSettings.Other"])
            let one = try StoredSettingsInspector.jsonObject(ofFileContents: file, key: "Audio")
            #expect((one["AppSettings.Audio"] as? [String: Any])?["muted"] as? Bool == false)
            #expect(one.count == 1)
        }
        let archive = try StoredSettingsInspector.jsonObject(ofFileContents: bytes, archiveName: "copy")
        #expect((archive["copy"] as? [String: Any])?["volume"] as? Int == 5)
        let named = try StoredSettingsInspector.jsonObject(ofFileContents: bytes, key: "Audio")
        #expect(Array(named.keys) == ["AppSettings.Audio"])
        // A Linux recovery copy: two slots, the newer one read.
        let louder = AudioSettings(userDefaults: suite.userDefaults)
        louder.volume = 9
        guard case .replace(let first) = RecoveryCopyFormat.write(bytes, over: nil),
            case .inPlace(let offset, let slot) = RecoveryCopyFormat.write(
                try TestingHooks(object: louder).archivedBytes(), over: first)
        else {
            Issue.record("a copy is made, then written in place")
            return
        }
        var copy = first
        copy.replaceSubrange(offset..<offset + slot.count, with: slot)
        let fromCopy = try StoredSettingsInspector.jsonObject(ofFileContents: copy, archiveName: "copy")
        #expect((fromCopy["copy"] as? [String: Any])?["volume"] as? Int == 9)
        for damaged in [Data("garbage".utf8), bytes.prefix(40), Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74])] {
            #expect(throws: AppSettingsError.self) { try StoredSettingsInspector.jsonObject(ofFileContents: damaged) }
        }
    }
}
