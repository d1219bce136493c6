import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// `jsonSchema()` checked by an independent validator (`SchemaValidatorScript`: Python's
    /// `jsonschema` package, draft 2020-12; skipped with a printed reason where it cannot run, but in CI).
    /// Its lines are captured: the tool's process writes the domain from its own cache of it, and
    /// a later load here logs the older set it put back (issue 46's `$generation`).
    @Suite("jsonSchema() against an independent JSON Schema validator, and the tool's checks", .capturedLibraryLog)
    final class SchemaValidatorTests {
        let suite = TemporarySuite()
        let directory: ScratchDirectory

        init() throws {
            directory = try ScratchDirectory("AppSettingsSchema")
        }

        /// The validator's verdict on each document, by file name; `nil` when it cannot run here.
        private func validate(schema: Data, documents: [(name: String, data: Data)]) throws -> [String: String]? {
            let schemaURL = try directory.file("schema.json", schema)
            var paths: [String] = []
            for document in documents { paths.append(try directory.file(document.name + ".json", document.data).path) }
            guard let output = try SchemaValidatorScript.run([schemaURL.path] + paths, for: "SchemaValidatorTests")
            else { return nil }
            var verdicts: [String: String] = [:]
            for line in output.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2)
                guard words.count >= 2 else { continue }
                let name = URL(fileURLWithPath: String(words[1].hasSuffix(":") ? words[1].dropLast() : words[1]))
                    .deletingPathExtension().lastPathComponent
                verdicts[name] = String(line)
            }
            return verdicts
        }

        @Test("the export validates; each bad document fails the validator and update(fromJSON:)")
        func independentValidator() throws {
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            settings.nickname = "n"
            settings.tags = ["x", "y"]
            settings.limits = ["a": 1, "b": -2]
            settings.audio.volume = 80
            settings.ratio = .infinity
            settings.pageLimit = 20
            let export = try settings.jsonRepresentation()
            let defaults = try SchemaSettings(userDefaults: suite.another()).jsonRepresentation()
            var documents: [(name: String, data: Data)] = [("export", export), ("defaults", defaults)]
            documents.append(
                ("partial", Data(#"{"theme": "dark", "$schemaVersion": 0, "audio": {"muted": true}}"#.utf8)))
            for (index, bad) in badSchemaDocuments.enumerated() {
                documents.append(("bad\(index)", Data(bad.json.utf8)))
            }
            guard let verdicts = try validate(schema: SchemaSettings.jsonSchema(), documents: documents) else { return }
            for good in ["export", "defaults", "partial"] {
                #expect(verdicts[good]?.hasPrefix("valid ") == true, "\(good): \(verdicts[good] ?? "no verdict")")
                let document = try #require(documents.first { $0.name == good }).data
                try settings.update(fromJSON: document)
            }
            for (index, bad) in badSchemaDocuments.enumerated() {
                let verdict = verdicts["bad\(index)"] ?? "no verdict"
                #expect(verdict.hasPrefix("invalid "), "\(bad.name): \(verdict)")
                #expect(throws: AppSettingsError.self, "\(bad.name)") {
                    try settings.update(fromJSON: Data(bad.json.utf8))
                }
            }
        }

        @Test("the harness can fail: a schema without the choices or the range lets the bad documents through")
        func harnessCanFail() throws {
            var schema = try #require(
                try JSONSerialization.jsonObject(with: SchemaSettings.jsonSchema()) as? [String: Any])
            var properties = try #require(schema["properties"] as? [String: [String: Any]])
            properties["theme"]?["enum"] = nil
            properties["retries"]?["maximum"] = nil
            schema["properties"] = properties
            let broken = try JSONSerialization.data(withJSONObject: schema)
            let documents = [("choice", Data(#"{"theme": "purple"}"#.utf8)), ("range", Data(#"{"retries": 11}"#.utf8))]
            guard let verdicts = try validate(schema: broken, documents: documents.map { (name: $0.0, data: $0.1) })
            else { return }
            #expect(verdicts["choice"]?.hasPrefix("valid ") == true, "\(verdicts)")
            #expect(verdicts["range"]?.hasPrefix("valid ") == true, "\(verdicts)")
        }

        // MARK: The tool

        private var key: [String] { ["--suite", suite.name, "--key", "SchemaSettings"] }

        private func stored() throws -> SchemaSettings {
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            settings.retries = 4
            try settings.synchronizeToUserDefaults()
            return settings
        }

        private func expectRefused(_ arguments: [String], mentioning text: String) throws {
            let before = suite.storedObject(forKey: "AppSettings.SchemaSettings") as? Data
            try Inspector.expectRefusal(arguments, mentioning: text)
            #expect(suite.storedObject(forKey: "AppSettings.SchemaSettings") as? Data == before, "\(arguments) wrote")
        }

        @Test("appsettings set and import refuse what the set's schema refuses, writing nothing")
        func toolRefusals() throws {
            _ = try stored()
            try expectRefused(["set"] + key + ["theme", "purple"], mentioning: #"one of "light", "dark""#)
            try expectRefused(["set"] + key + ["soundLevel", "5"], mentioning: "0...1")
            try expectRefused(["set"] + key + ["retries", "0"], mentioning: "1...10")
            try expectRefused(["set"] + key + ["audio.volume", "101"], mentioning: "0...100")
            try expectRefused(["set"] + key + ["themes", #"["dark", "sepia"]"#], mentioning: "themes[1]")
            try expectRefused(["set"] + key + ["level", "3"], mentioning: "one of 1, 2")
            let bad = try directory.file("bad.json", Data(#"{"retries": 4, "theme": "sepia"}"#.utf8))
            try expectRefused(["import"] + key + [bad.path], mentioning: "sepia")

            for arguments in [["theme", "dark"], ["soundLevel", "0.5"], ["audio.volume", "100"], ["level", "2"]] {
                let result = try Inspector.run(["set"] + key + arguments)
                #expect(result.status == 0, "\(arguments): \(result.errors)")
            }
            let reloaded = SchemaSettings(userDefaults: suite.another())
            try reloaded.resetToUserDefaults()  // what the tool (another process) wrote, from disk
            #expect(reloaded.theme == .dark && reloaded.soundLevel == 0.5 && reloaded.audio.volume == 100)
            #expect(reloaded.level == .high)
            // The rewritten set still carries its schema.
            try expectRefused(["set"] + key + ["theme", "purple"], mentioning: "purple")
        }

        @Test("appsettings schema prints the class's schema; a set stored before has none and keeps working")
        func schemaCommand() throws {
            _ = try stored()
            let printed = try Inspector.runSucceeding(["schema"] + key).jsonObject()
            let schema = try #require(
                try JSONSerialization.jsonObject(with: SchemaSettings.jsonSchema()) as? [String: Any])
            #expect(
                Set((printed["properties"] as? [String: Any])?.keys ?? [:].keys)
                    == Set((schema["properties"] as? [String: Any])?.keys ?? [:].keys))
            let appConfig = try Inspector.run(
                ["schema"] + key + ["--format", "appconfig", "--bundle-id", "com.example"])
            #expect(appConfig.status == 0 && appConfig.output.contains("<bundleId>com.example</bundleId>"))
            let wrong = try Inspector.run(["schema"] + key + ["--format", "yaml"])
            #expect(wrong.status == 2)

            // A set stored before this version, as it stored it (the domain and the recovery copy):
            // no `$schema`. The tool edits it as before.
            let old = KeyedArchiveWriter.archive(
                schemaVersion: 0, settings: ["theme": .string("light"), "retries": .integer(3)])
            try TestingHooks(object: SchemaSettings(userDefaults: suite.another())).writeStoredBytes(old)
            let none = try Inspector.run(["schema"] + key)
            #expect(none.status == 1 && none.errors.contains("carries no schema"), "\(none.errors)")
            #expect(try Inspector.run(["set"] + key + ["retries", "50"]).status == 0)
            // The app clamps what the tool could not check.
            let reloaded = SchemaSettings(userDefaults: suite.another())
            try reloaded.resetToUserDefaults()
            #expect(reloaded.retries == 10)
        }
    }
#endif
