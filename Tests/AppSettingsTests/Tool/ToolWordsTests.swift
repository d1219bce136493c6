import Foundation
import Testing

@testable import AppSettings

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// The tool in the user's terms (issue 48): a refusal names the setting, the value as typed and
    /// what the declaration accepts; a misspelt name gets the near ones; `remove` and `diff` read
    /// as `get` and `import` do; what the tool cannot check is said.
    // Lines captured: the tool's process writes the domain from its own cache, and a later load
    // here may log the older set it put back (issue 46's `$generation`).
    @Suite("appsettings in the user's terms", .capturedLibraryLog)
    struct ToolWordsTests {
        let suite = TemporarySuite()
        let directory: ScratchDirectory
        private var key: [String] { ["--suite", suite.name, "--key", "SchemaSettings"] }

        init() throws {
            directory = try ScratchDirectory("AppSettingsToolWords")
            // A change, so that the save stores the set.
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            settings.retries = 4
            try settings.synchronizeToUserDefaults()
        }

        private func errors(_ arguments: [String]) throws -> String {
            try Inspector.run(arguments).errors
        }

        @Test("a refused value is named as typed, with what the declaration accepts")
        func refusalsNameTheValueAsTyped() throws {
            #expect(
                try errors(["set"] + key + ["retries", "abc"])
                    == "appsettings: error: the value for 'retries' is abc, expected an integer in 1...10; nothing was changed\n"
            )
            #expect(
                try errors(["set"] + key + ["retries", "10.000000000000001"]).contains(
                    "is 10.000000000000001, expected an integer in 1...10"))
            #expect(
                try errors(["set"] + key + ["small", "9223372036854775807.0"]).contains(
                    "is 9223372036854775807.0, expected an integer in -128...127"))
            #expect(try errors(["set"] + key + ["retries", "abc"]).contains("JSON") == false)
            // Integral forms are integers, read by their digits.
            let result = try Inspector.run(["set"] + key + ["retries", "1e1"])
            #expect(result.status == 0, "\(result.errors)")
            let settings = SchemaSettings(userDefaults: suite.another())
            try settings.resetToUserDefaults()
            #expect(settings.retries == 10)
        }

        @Test("a misspelt setting gets the names near it; remove names the sets there are")
        func nearNames() throws {
            #expect(try errors(["get"] + key + ["retris"]).contains("did you mean 'retries'?"))
            #expect(try errors(["set"] + key + ["Retries", "3"]).contains("did you mean 'retries'?"))
            #expect(try errors(["set"] + key + ["audio.volum", "3"]).contains("did you mean 'audio.volume'?"))
            let document = try directory.file("typo.json", Data(#"{"sinse": "2001-01-01T00:00:00Z"}"#.utf8))
            #expect(try errors(["import"] + key + [document.path]).contains("did you mean 'since'?"))
            let unlike = try errors(["get"] + key + ["zzzzzzzz"])
            #expect(
                unlike.contains(" (its settings: audio, audio.muted, audio.volume, level, limits, limits.x,"),
                "\(unlike)")
            let remove = try Inspector.run(["remove", "--suite", suite.name, "--key", "Nope"])
            #expect(remove.status == 1)
            #expect(remove.errors.contains("its sets: AppSettings.SchemaSettings"), "\(remove.errors)")
        }

        @Test("diff reads a document as import does: a trailing comma is no JSON")
        func diffReadsAsImportDoes() throws {
            let export = try Inspector.runSucceeding(["export"] + key).output
            let first = try directory.file("first.json", Data(export.utf8))
            let trailing = try directory.file("second.json", Data(#"{"retries": 4,}"#.utf8))
            let diff = try Inspector.run(["diff", first.path, trailing.path])
            #expect(diff.status == 2)
            #expect(diff.errors.contains("line 1, column 15: expected a name in quotes"), "\(diff.errors)")
            let importing = try Inspector.run(["import"] + key + [trailing.path])
            #expect(importing.errors.contains("line 1, column 15: expected a name in quotes"), "\(importing.errors)")
            // Numbers by value: 1.5e0 is 1.5, 4.0 is 4.
            let exact = try directory.file("third.json", Data(#"{"ratio": 5e-1, "retries": 3.0}"#.utf8))
            #expect(
                try Inspector.run(["diff", "--suite", suite.name, "--key", "SchemaSettings", exact.path]).output
                    .contains("ratio") == false)
        }

        @Test("a setting checked by validate: is marked in the schema, and storing one says so")
        func validateIsSaid() throws {
            let schema = try #require(
                try JSONSerialization.jsonObject(with: SchemaSettings.jsonSchema()) as? [String: Any])
            let wraps = try #require((schema["properties"] as? [String: Any])?["wraps"] as? [String: Any])
            #expect(wraps["$comment"] as? String == JSONSchema.checkedByAppComment)
            let retries = try #require((schema["properties"] as? [String: Any])?["retries"] as? [String: Any])
            #expect(retries["$comment"] == nil)
            let result = try Inspector.run(["set"] + key + ["wraps", "5"])
            #expect(result.status == 0)
            #expect(
                result.errors.contains("note: 'wraps' is checked by the app's validate: rule too"), "\(result.errors)")
            #expect(try Inspector.run(["set"] + key + ["retries", "5"]).errors.isEmpty)
            // The stored schema says it too: the tool's schema is the class's.
            #expect(
                try Inspector.runSucceeding(["schema"] + key).output
                    == String(decoding: SchemaSettings.jsonSchema(), as: UTF8.self))
        }
    }
#endif
