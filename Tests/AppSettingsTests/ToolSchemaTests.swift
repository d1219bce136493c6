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
    @Suite("appsettings schema and refusals: the tool's words are the app's")
    struct ToolSchemaTests {
        let suite = TemporarySuite()

        /// Stores `settings` (a forced save: every value is its default) and returns what the
        /// tool's schema path gives for its set and what the class's `jsonSchema()` gives.
        private func schemas<Settings: AppSettingsObject>(
            of settings: Settings
        ) throws -> (printed: Data, expected: Data) {
            _ = try settings.synchronize(forcing: true)
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
            _ = try RenamedSchemaSettings(userDefaults: suite.userDefaults).synchronize(forcing: true)
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
            let values = try settings.codec.encodedSettings(settings.takeSnapshot())
            // What 0.1.0 stored: the compact schema without defaults, title or version.
            let properties = settings.schemaProperties().map { property in
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
