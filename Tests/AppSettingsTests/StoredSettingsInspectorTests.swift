import Foundation
import Testing

@testable @_spi(Testing) import AppSettings

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
            values.count == AllTypesSettings(userDefaults: TemporarySuite().userDefaults).settingNames.count + 1,
            "count")
    }

    @Test("an archive's bytes, and a set asked for by its full key or its postfix")
    func archiveBytesAndKeys() throws {
        let settings = try storedAllTypes()
        let values = try StoredSettingsInspector.jsonObject(ofArchive: try settings._archivedBytes())
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
        let bytes = try AudioSettings(userDefaults: suite.userDefaults)._archivedBytes()
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
        let bytes = try AudioSettings(userDefaults: suite.userDefaults)._archivedBytes()
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
        let bytes = try AudioSettings(userDefaults: suite.userDefaults)._archivedBytes()
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
        for damaged in [Data("garbage".utf8), bytes.prefix(40), Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74])] {
            #expect(throws: AppSettingsError.self) { try StoredSettingsInspector.jsonObject(ofFileContents: damaged) }
        }
    }
}

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// The `appsettings` executable run as a user runs it.
    @Suite("appsettings command")
    final class InspectorCommandTests {
        let suite = TemporarySuite()
        let directory: ScratchDirectory

        init() throws {
            directory = try ScratchDirectory("AppSettingsInspector")
        }

        /// A file in this test's scratch directory, removed with it.
        private func file(_ name: String, _ contents: Data) throws -> URL {
            try directory.file(name, contents)
        }

        private func storedAudio() throws -> AudioSettings {
            let settings = AudioSettings(userDefaults: suite.userDefaults)
            settings.volume = 9
            try settings.synchronizeToUserDefaults()
            return settings
        }

        /// Runs the command; expects it to succeed and returns its output parsed as JSON.
        private func dump(_ arguments: [String]) throws -> [String: Any] {
            let result = try Inspector.run(["dump"] + arguments)
            try #require(result.status == 0, "appsettings failed: \(result.errors)")
            #expect(result.errors.isEmpty)
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        /// Runs the command; expects exit status `status` with one line on standard error and no output.
        private func expectFailure(_ arguments: [String], status: Int32 = 1, mentioning text: String) throws {
            let result = try Inspector.run(arguments)
            #expect(result.status == status)
            #expect(result.output.isEmpty)
            #expect(result.errors.hasPrefix("appsettings: error: "))
            #expect(result.errors.hasSuffix("\n") && result.errors.filter { $0 == "\n" }.count == 1)
            #expect(result.errors.contains(text), "\(result.errors)")
        }

        @Test("dump --suite, every set and one by its postfix")
        func suiteDump() throws {
            let settings = AllTypesSettings(userDefaults: suite.userDefaults)
            SettingValueTests.fill(settings)
            try settings.synchronizeToUserDefaults()
            _ = try storedAudio()
            let sets = try dump(["--suite", suite.name])
            #expect(Set(sets.keys) == ["AppSettings.AllTypesSettings", "AppSettings.AudioSettings"])
            StoredSettingsInspectorTests.expectAllTypes(
                try #require(sets["AppSettings.AllTypesSettings"] as? [String: Any]))
            let one = try dump(["--suite", suite.name, "--key", "AudioSettings"])
            #expect((one["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #expect(one.count == 1)
        }

        @Test("dump --file of a domain file (binary and XML) and of an archive")
        func fileDump() throws {
            let bytes = try storedAudio()._archivedBytes()
            for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
                let domain = try PropertyListSerialization.data(
                    fromPropertyList: ["AppSettings.AudioSettings": bytes, "other": "x"], format: format, options: 0)
                let sets = try dump(["--file", try file("domain.plist", domain).path])
                #expect((sets["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
                #expect(sets.count == 1)
            }
            let archive = try dump(["--file", try file("AppSettings.AudioSettings.archive", bytes).path])
            #expect((archive["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #if os(Linux)
                // The suite's own domain file, as corelibs wrote it.
                let domainFile = try #require(AudioSettings(userDefaults: suite.userDefaults).domainFileURL)
                let sets = try dump(["--file", domainFile.path, "--key", "AppSettings.AudioSettings"])
                #expect((sets["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #endif
        }

        @Test("a damaged or missing file, a key with no set, wrong arguments: non-zero, one line on stderr")
        func failures() throws {
            let bytes = try storedAudio()._archivedBytes()
            let damaged = try file("damaged.archive", bytes.prefix(bytes.count - 10))
            try expectFailure(["dump", "--file", damaged.path], mentioning: damaged.path)
            let garbage = try file("garbage.plist", Data("<plist><dict><key>".utf8))
            try expectFailure(["dump", "--file", garbage.path], mentioning: "not a property list")
            let missing = directory.missingFile("missing.plist")
            try expectFailure(["dump", "--file", missing], mentioning: "no such file")
            try expectFailure(["dump", "--suite", suite.name, "--key", "Missing"], mentioning: "Missing")
            try expectFailure(["dump", "--suite"], status: 2, mentioning: "--suite needs a value")
            try expectFailure(["dump", "--suite", suite.name, "--verbose"], status: 2, mentioning: "'--verbose'")
            try expectFailure(["list"], status: 2, mentioning: "unknown command 'list'")
            try expectFailure([], status: 2, mentioning: "missing command")
        }

        @Test("--help prints the usage")
        func help() throws {
            let result = try Inspector.run(["--help"])
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("usage: appsettings dump --suite NAME [--key KEY]"))
        }
    }

    /// The `appsettings` executable, built by `swift test` next to the test bundle (the test target
    /// depends on it), found as `ProcessTests` finds its host.
    enum Inspector {
        struct Finished {
            var status: Int32
            var output: String
            var errors: String
        }

        static let executableURL = BuiltExecutable.url(named: "appsettings")

        static func run(_ arguments: [String]) throws -> Finished {
            let executable = try #require(executableURL, "appsettings not found next to the test binary")
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("appsettings-\(UUID().uuidString)")
            let outputURL = base.appendingPathExtension("out")
            let errorURL = base.appendingPathExtension("err")
            defer {
                try? FileManager.default.removeItem(at: outputURL)
                try? FileManager.default.removeItem(at: errorURL)
            }
            _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: outputURL)
            process.standardError = try FileHandle(forWritingTo: errorURL)
            try process.run()
            process.waitUntilExit()
            return Finished(
                status: process.terminationStatus,
                output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
                errors: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            )
        }
    }
#endif
