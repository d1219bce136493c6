@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

/// A class whose key is not its name, of a later schema version, with the bounds of the widest
/// integers, negative and fractional ranges, an optional choice and descriptions beyond ASCII.
final class RenamedSchemaSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Größe — in Punkten") var size: Float = 12.5
    @Setting(in: 0...UInt64.max) var huge: UInt64 = UInt64.max
    @Setting(in: Int64.min...Int64.max) var wide: Int64 = Int64.min
    @Setting(in: -2.5...(-0.125)) var below = -1.0
    @Setting var mood: SchemaTheme? = .dark
    @Setting var stamps: [Date] = [Date(timeIntervalSince1970: 1_000_000_000.25)]
    @Setting var nested = SchemaAudioSettings()

    override var userDefaultsKeyPostfix: String { "RenamedForStorage" }
    override class var schemaVersion: Int { 3 }
}

// Real processes need `Process`, which exists on macOS and Linux only; the Apple-model build leaves
// this file out (the tool is a second process), as it leaves out ToolValueTests.
#if os(Linux) || os(macOS)
    /// `appsettings schema` prints exactly `jsonSchema()`; a refused value says the same words in
    /// the tool as in `update(fromJSON:)`; an integer beyond 64 bits is shown as written (issue 39).
    // Lines captured: the tool's process writes the domain from its own cache, and a later load
    // here may log the older set it put back (issue 46's `$generation`).
    @Suite("appsettings schema and refusals: the tool's words are the app's", .capturedLibraryLog)
    struct ToolSchemaTests {
        let suite = TemporarySuite()

        /// Stores `settings` (a forced save: every value is its default) and returns what the
        /// tool's schema path gives for its set and what the class's `jsonSchema()` gives.
        private func schemas<Settings: AppSettingsObject>(
            of settings: Settings
        ) throws -> (printed: Data, expected: Data) {
            _ = try settings.ledger.synchronize(forcing: true)
            let data = try #require(suite.storedObject(forKey: settings.userDefaultsKey) as? Data)
            let printed = try #require(
                try StoredSettingsInspector.schema(ofArchive: data, key: settings.userDefaultsKey, format: .json))
            return (printed, Settings.jsonSchema())
        }

        @Test("the schema stored with a set prints as jsonSchema() does, byte for byte")
        func schemaEqualsJSONSchema() throws {
            let cases: [(String, Data, Data)] = try [
                ("SchemaSettings", schemas(of: SchemaSettings(userDefaults: suite.userDefaults))),
                ("EveryKindSettings", schemas(of: EveryKindSettings(userDefaults: suite.userDefaults))),
                ("TextFormSettings", schemas(of: TextFormSettings(userDefaults: suite.userDefaults))),
                ("MigratedSettings", schemas(of: MigratedSettings(userDefaults: suite.userDefaults))),
                ("RenamedSchemaSettings", schemas(of: RenamedSchemaSettings(userDefaults: suite.userDefaults))),
            ].map { ($0.0, $0.1.printed, $0.1.expected) }
            for (name, printed, expected) in cases {
                #expect(
                    printed == expected,
                    "\(name):\n\(String(decoding: printed, as: UTF8.self))\n---\n\(String(decoding: expected, as: UTF8.self))"
                )
            }
        }

        @Test("the tool's schema command prints jsonSchema() byte for byte, also after the tool's own edit")
        func schemaCommand() throws {
            let key = ["--suite", suite.name, "--key", "RenamedForStorage"]
            _ = try RenamedSchemaSettings(userDefaults: suite.userDefaults).ledger.synchronize(forcing: true)
            var result = try Inspector.run(["schema"] + key)
            #expect(result.status == 0, "\(result.errors)")
            #expect(Data(result.output.utf8) == RenamedSchemaSettings.jsonSchema(), "\(result.output)")
            // An edit by the tool rewrites the set with the schema it carries, whole.
            result = try Inspector.run(["set"] + key + ["below", "-0.5"])
            #expect(result.status == 0, "\(result.errors)")
            result = try Inspector.run(["schema"] + key)
            #expect(Data(result.output.utf8) == RenamedSchemaSettings.jsonSchema(), "\(result.output)")
        }

        @Test("a set stored by 0.1.0 (a schema without defaults) prints without them, and the tool says so")
        func olderSchema() throws {
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            let values = try SettingsCodec(object: settings).encodedSettings(settings.ledger.takeSnapshot())
            // What 0.1.0 stored: the compact schema without defaults, title or version.
            let properties = settings.forms.schemaProperties().map { property in
                var property = property
                property.defaultValue = nil
                if case .object(let nested) = property.node {
                    property.node = .object(
                        nested.map { nested in
                            var nested = nested
                            nested.defaultValue = nil
                            return nested
                        })
                }
                return property
            }
            let text = StoredSchema(properties).text(forNames: values.keys.sorted(), values: values)
            #expect(!text.contains(#""=":"#), "\(text)")
            suite.userDefaults.set(
                KeyedArchiveWriter.archive(schemaVersion: 0, settings: values, schema: text),
                forKey: settings.userDefaultsKey)
            #expect(suite.userDefaults.synchronize())
            let result = try Inspector.run(["schema", "--suite", suite.name, "--key", "SchemaSettings"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.errors.contains("stored by AppSettings 0.1.0") && result.errors.contains(#"no "default""#))
            #expect(try withoutDefaults(Data(result.output.utf8)) == withoutDefaults(SchemaSettings.jsonSchema()))
            #expect(!result.output.contains(#""default""#))
        }

        /// A refused value, as a document gives it (`json`) and as `appsettings set` takes it
        /// (`text`), for the setting at `path`.
        struct Refusal: CustomStringConvertible {
            var path: String
            var json: String
            var text: String
            var description: String { "\(path) = \(text)" }

            init(_ path: String, _ json: String, _ text: String? = nil) {
                self.path = path
                self.json = json
                self.text = text ?? json
            }

            /// The document that sets `path` (dotted into nested objects) to `json`.
            var document: Data {
                let names = path.split(separator: ".")
                let inner = names.reversed().reduce(json) { value, name in "{\"\(name)\": \(value)}" }
                return Data(inner.utf8)
            }
        }

        static let schemaRefusals: [Refusal] = [
            Refusal("theme", #""purple""#, "purple"), Refusal("retries", "11"),
            Refusal("retries", #""three""#, "three"), Refusal("retries", "null"), Refusal("retries", "2.5"),
            Refusal("soundLevel", "1.5"), Refusal("soundLevel", "1.00000001"), Refusal("level", "3"),
            Refusal("themes", #"["dark", "sepia"]"#), Refusal("tags", #"["a", 2]"#),
            Refusal("limits", #"{"x": "one"}"#), Refusal("audio.volume", "101"), Refusal("audio", "5"),
            Refusal("audio", #"{"loud": true}"#), Refusal("since", #""2020-02-30T00:00:00Z""#, "2020-02-30T00:00:00Z"),
            Refusal("since", #""2020-01-01""#, "2020-01-01"), Refusal("token", #""AQIDBA=""#, "AQIDBA="),
            Refusal("small", "300"), Refusal("small", "18446744073709551616"), Refusal("nickname", "5"),
            Refusal("pageLimit", "0"), Refusal("wraps", "11"), Refusal("ratio", "true"),
        ]

        /// What `update(fromJSON:)` says of `refusal`'s document, and what the tool's `set` and
        /// `import` say (their standard error, one line).
        private func messages(
            of refusal: Refusal,
            app settings: AppSettingsObject,
            key: [String]
        ) throws -> (app: String, set: String, import: String) {
            var app = "accepted"
            do {
                try settings.update(fromJSON: refusal.document)
            } catch let error as AppSettingsError {
                app = error.description
            }
            let set = try Inspector.run(["set"] + key + ["--", refusal.path, refusal.text])
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "refusal-\(UUID().uuidString).json")
            try refusal.document.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let imported = try Inspector.run(["import"] + key + [file.path])
            // The tool names a value as it was typed (issue 48): `purple`, which a document writes
            // `"purple"`; and adds the names near a misspelt one.
            func words(_ errors: String, typed: Bool) -> String {
                var text = errors.replacingOccurrences(of: "appsettings: error: ", with: "")
                    .replacingOccurrences(of: "\(file.path): ", with: "")
                if let near = text.range(of: #" \((did you mean|its settings)[^)]*\)"#, options: .regularExpression) {
                    text.removeSubrange(near)
                }
                return typed
                    ? text.replacingOccurrences(of: " is \(refusal.text), ", with: " is \(refusal.json), ") : text
            }
            return (app, words(set.errors, typed: true), words(imported.errors, typed: false))
        }

        @Test("a refused value's message is the same from update(fromJSON:), appsettings set and import")
        func sameWords() throws {
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            _ = try settings.ledger.synchronize(forcing: true)
            let key = ["--suite", suite.name, "--key", "SchemaSettings"]
            for refusal in Self.schemaRefusals {
                let (app, set, imported) = try messages(of: refusal, app: settings, key: key)
                #expect(app != "accepted", "\(refusal)")
                #expect(set == app + "\n", "\(refusal)")
                #expect(imported == app + "\n", "\(refusal)")
            }
        }

        @Test("a set stored without a schema is refused in the same words, by what its values are")
        func sameWordsWithoutSchema() throws {
            let settings = EveryKindSettings(userDefaults: suite.userDefaults)
            let values = try SettingsCodec(object: settings).encodedSettings(settings.ledger.takeSnapshot())
            // As a version before schemas stored it: no `$schema`.
            suite.userDefaults.set(
                KeyedArchiveWriter.archive(schemaVersion: 0, settings: values), forKey: settings.userDefaultsKey)
            #expect(suite.userDefaults.synchronize())
            let key = ["--suite", suite.name, "--key", "EveryKindSettings"]
            // Settings whose stored kind is their type: the tool knows what the app knows. (`set`
            // takes a string setting's text as it is; an `import` of a stored integer takes either
            // side of `Int64.max`, an export of a `UInt64` setting's, so says the wider range.)
            let refusals = [
                Refusal("flag", #""yes""#, "yes"),
                Refusal("when", #""2020-02-30T24:00:00Z""#, "2020-02-30T24:00:00Z"),
                Refusal("blob", #""AQIDBA=""#, "AQIDBA="), Refusal("link", #""""#, ""),
                Refusal("link", #""https://exa mple.com""#, "https://exa mple.com"),
                Refusal("id", #""not-a-uuid""#, "not-a-uuid"),
                Refusal("real", "true"), Refusal("single", "1e39"), Refusal("wide", "1.5"),
                Refusal("wide", "-9223372036854775809"), Refusal("count", "18446744073709551616"),
            ]
            for refusal in refusals {
                let (app, set, imported) = try messages(of: refusal, app: settings, key: key)
                #expect(app != "accepted", "\(refusal)")
                #expect(set == app + "\n", "\(refusal)")
                if !["wide", "count"].contains(refusal.path) { #expect(imported == app + "\n", "\(refusal)") }
            }
            let imported = try messages(of: Refusal("wide", "1.5"), app: settings, key: key).import
            #expect(imported.contains("expected an integer in -9223372036854775808...18446744073709551615"))
        }

        @Test("an integer beyond 64 bits is shown as written, by update(fromJSON:) and the tool alike")
        func integersBeyond64Bits() throws {
            let settings = EveryKindSettings(userDefaults: suite.userDefaults)
            _ = try settings.ledger.synchronize(forcing: true)
            let key = ["--suite", suite.name, "--key", "EveryKindSettings"]
            let texts = [
                "18446744073709551616", "-9223372036854775809", "-9223372036854775900",
                "123456789012345678901234567890",
            ]
            for text in texts {
                for path in ["wide", "unsigned", "small", "theme", "text"] {
                    let (app, set, imported) = try messages(of: Refusal(path, text), app: settings, key: key)
                    #expect(app.contains("'\(path)' is \(text), expected"), "\(app)")
                    #expect(imported == app + "\n", "\(path) = \(text)")
                    // `set` takes the text as it is where a string is stored (a string, a raw value).
                    if !["text", "theme"].contains(path) { #expect(set == app + "\n", "\(path) = \(text)") }
                }
                let (app, set, _) = try messages(of: Refusal("grid", "[[1, \(text)]]"), app: settings, key: key)
                #expect(app.contains("'grid[0][1]' is \(text), expected an integer in -32768...32767"), "\(app)")
                #expect(set == app + "\n")
            }
            // A real number setting takes one, as the number nearest it.
            try settings.update(
                fromJSON: Data(#"{"real": 18446744073709551616, "weights": {"a": -9223372036854775809}}"#.utf8))
            #expect(
                settings.real == 18_446_744_073_709_551_616.0 && settings.weights == ["a": -9_223_372_036_854_775_809.0]
            )
            let result = try Inspector.run(["set"] + key + ["real", "-9223372036854775809"])
            #expect(result.status == 0, "\(result.errors)")
            let reloaded = EveryKindSettings(userDefaults: suite.another())
            try reloaded.resetToUserDefaults()
            #expect(reloaded.real == -9_223_372_036_854_775_809.0)
        }

        /// A schema's JSON without its `default` keywords, compact with sorted keys.
        private func withoutDefaults(_ data: Data) throws -> String {
            func strip(_ value: Any) -> Any {
                if let dictionary = value as? [String: Any] {
                    return dictionary.filter { $0.key != "default" }.mapValues(strip)
                }
                if let array = value as? [Any] { return array.map(strip) }
                return value
            }
            let object = strip(try JSONSerialization.jsonObject(with: data))
            return String(
                decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
    }
#endif
