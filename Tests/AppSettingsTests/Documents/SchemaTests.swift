@_spi(AppSettingsTool) import AppSettingsStoredSets
import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

#if canImport(FoundationXML)
    import FoundationXML
#endif

enum SchemaTheme: String, CaseIterable { case light, dark }
extension SchemaTheme: SettingValue {}

/// `Int` raw values, and `Codable` too: described by its raw values all the same.
enum SchemaLevel: Int, CaseIterable, Codable {
    case low = 1
    case high = 2
}
extension SchemaLevel: SettingValue {}

final class SchemaAudioSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(in: 0...100, description: "Volume in percent") var volume = 50
    @Setting var muted = false
}

/// Ranges, choices, optionals, arrays, dictionaries and a nested object.
final class SchemaSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(in: 0...1, description: "Volume of sound effects") var soundLevel: Float = 0.7
    @Setting(description: "Appearance") var theme = SchemaTheme.light
    @Setting(in: 1...10) var retries = 3
    @Setting var level = SchemaLevel.low
    @Setting var nickname: String? = nil
    @Setting var tags: [String] = ["a"]
    @Setting var limits: [String: Int] = ["x": 1]
    @Setting var themes: [SchemaTheme] = [.dark]
    @Setting var audio = SchemaAudioSettings()
    @Setting(in: Date(timeIntervalSinceReferenceDate: 0)...Date(timeIntervalSinceReferenceDate: 1e9))
    var since = Date(timeIntervalSinceReferenceDate: 5)
    @Setting var token = Data([1, 2, 3])
    @Setting var ratio = 0.5
    @Setting var small: Int8 = 3
    @Setting(in: 0...10, validate: { $0 == 10 ? 0 : $0 }) var wraps = 1
    @Setting(in: 1...100, description: "Pages at most") var pageLimit: Int? = nil
}

/// Documents `update(fromJSON:)` and the schema both refuse, by what is wrong.
let badSchemaDocuments: [(name: String, json: String)] = [
    ("out of range", #"{"soundLevel": 1.5}"#),
    ("out of range, integer", #"{"retries": 11}"#),
    ("unknown choice", #"{"theme": "purple"}"#),
    ("unknown choice, Int raw value", #"{"level": 3}"#),
    ("unknown choice in an array", #"{"themes": ["dark", "sepia"]}"#),
    ("wrong type", #"{"retries": "three"}"#),
    ("wrong element type", #"{"tags": ["a", 2]}"#),
    ("wrong dictionary value type", #"{"limits": {"x": "one"}}"#),
    ("unknown setting", #"{"volume": 3}"#),
    ("null for a non-optional", #"{"retries": null}"#),
    ("bad nested value", #"{"audio": {"volume": 101}}"#),
    ("unknown nested setting", #"{"audio": {"loud": true}}"#),
    ("integer over its type", #"{"small": 300}"#),
    ("not a date", #"{"since": "yesterday"}"#),
    ("not base64", #"{"token": "***"}"#),
    ("optional out of range", #"{"pageLimit": 0}"#),
]

@Suite("Ranges, choices and the JSON Schema of a set")
struct SchemaTests {
    let suite = TemporarySuite()

    @Test("an assignment and a load clamp into the range, before validate:")
    func clamping() throws {
        let settings = SchemaSettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 5
        #expect(settings.soundLevel == 1)
        settings.soundLevel = -2
        #expect(settings.soundLevel == 0)
        settings.soundLevel = .nan
        #expect(settings.soundLevel == 0)
        settings.retries = 0
        #expect(settings.retries == 1)
        settings.since = Date(timeIntervalSinceReferenceDate: 2e9)
        #expect(settings.since == Date(timeIntervalSinceReferenceDate: 1e9))
        // Clamped to 10, then validate: turns 10 into 0 (it runs on the clamped value: run first,
        // it would have left 20, clamped to 10).
        settings.wraps = 20
        #expect(settings.wraps == 0)
        settings.pageLimit = 500
        #expect(settings.pageLimit == 100)
        settings.pageLimit = nil
        #expect(settings.pageLimit == nil)

        // A stored value outside the range (stored before the range was declared) loads clamped.
        let archive = KeyedArchiveWriter.archive(
            schemaVersion: 0, settings: ["soundLevel": .float(5), "retries": .integer(99), "theme": .string("dark")])
        suite.userDefaults.set(archive, forKey: settings.userDefaultsKey)
        let loaded = SchemaSettings(userDefaults: suite.another())
        #expect(loaded.soundLevel == 1 && loaded.retries == 10 && loaded.theme == .dark)
        #expect(loaded.lastLoadError == nil)
    }

    @Test("update(fromJSON:) refuses a value outside the range, naming it, and an unknown choice")
    func documentRefusals() throws {
        let settings = SchemaSettings(userDefaults: suite.userDefaults)
        let before = try settings.jsonRepresentation()
        do {
            try settings.update(fromJSON: Data(#"{"soundLevel": 1.5}"#.utf8))
            Issue.record("accepted")
        } catch let error as AppSettingsError {
            #expect(error.description.contains("0...1"), "\(error)")
            #expect(error.description.contains("soundLevel"), "\(error)")
        }
        do {
            try settings.update(fromJSON: Data(#"{"audio": {"volume": 101}}"#.utf8))
            Issue.record("accepted")
        } catch let error as AppSettingsError {
            #expect(error.description.contains("audio.volume") && error.description.contains("0...100"), "\(error)")
        }
        for document in badSchemaDocuments {
            #expect(throws: AppSettingsError.self, "\(document.name)") {
                try settings.update(fromJSON: Data(document.json.utf8))
            }
        }
        #expect(try settings.jsonRepresentation() == before)
        try settings.update(fromJSON: Data(#"{"soundLevel": 1, "retries": 10, "theme": "dark", "level": 2}"#.utf8))
        #expect(
            settings.soundLevel == 1 && settings.retries == 10 && settings.theme == .dark && settings.level == .high)
    }

    @Test("jsonSchema() describes every setting: types, optionals, ranges, choices, defaults, descriptions")
    func schemaContents() throws {
        let schema = try #require(
            try JSONSerialization.jsonObject(with: SchemaSettings.jsonSchema()) as? [String: Any])
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["additionalProperties"] as? Bool == false)
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(
            Set(properties.keys)
                == Set(SchemaSettings(userDefaults: suite.userDefaults).ledger.storedSettingNames + ["$schemaVersion"]))
        let soundLevel = try #require(properties["soundLevel"])
        #expect(soundLevel["minimum"] as? Double == 0 && soundLevel["maximum"] as? Double == 1)
        #expect(soundLevel["description"] as? String == "Volume of sound effects")
        #expect(soundLevel["default"] as? Double == 0.7)
        #expect(properties["theme"]?["enum"] as? [String] == ["light", "dark"])
        #expect(properties["level"]?["enum"] as? [Int] == [1, 2])
        #expect(properties["retries"]?["maximum"] as? Int == 10)
        #expect(properties["small"]?["minimum"] as? Int == -128)
        let pageLimit = try #require(properties["pageLimit"]?["anyOf"] as? [[String: Any]])
        #expect(
            pageLimit.contains { $0["maximum"] as? Int == 100 }
                && pageLimit.contains { $0["type"] as? String == "null" })
        let nickname = try #require(properties["nickname"]?["anyOf"] as? [[String: Any]])
        #expect(nickname.contains { $0["type"] as? String == "null" })
        let audio = try #require(properties["audio"])
        #expect(audio["additionalProperties"] as? Bool == false)
        #expect((audio["properties"] as? [String: [String: Any]])?["volume"]?["maximum"] as? Int == 100)
        #expect((properties["themes"]?["items"] as? [String: Any])?["enum"] as? [String] == ["light", "dark"])
        #expect(((properties["limits"]?["additionalProperties"]) as? [String: Any])?["type"] as? String == "integer")
    }

    @Test("the schema's own check agrees with update(fromJSON:) on every bad document and the export")
    func schemaCheckAgrees() throws {
        let settings = SchemaSettings(userDefaults: suite.userDefaults)
        let properties = settings.forms.schemaProperties()
        func problem(_ json: Data) throws -> SchemaProblem? {
            let document = try JSONForm.document(from: json, key: "")
            return SchemaNode.problem(with: document.entries, properties: properties, prefix: "")
        }
        let exported = try problem(settings.jsonRepresentation())
        #expect(exported == nil, "\(String(describing: exported))")
        for document in badSchemaDocuments {
            #expect(try problem(Data(document.json.utf8)) != nil, "\(document.name)")
        }
    }

    @Test("an override outside the range is ignored and listed; an unknown choice too")
    func overrides() throws {
        let sources = OverrideSources(
            arguments: [
                "test", "-SchemaSettings.retries", "50", "-SchemaSettings.theme", "purple",
                "-SchemaSettings.soundLevel", "0.25",
            ],
            environment: [:], managed: .none)
        let (settings, lines) = AppSettingsLog.capture {
            OverrideSources.$current.withValue(sources) { SchemaSettings(userDefaults: suite.userDefaults) }
        }
        #expect(lines.count == 2 && lines.contains { $0.contains("1...10") }, "\(lines)")
        #expect(settings.retries == 3 && settings.theme == .light && settings.soundLevel == 0.25)
        let ignored = settings.ignoredOverrides.map(\.setting).sorted()
        #expect(ignored == ["retries", "theme"])
        let retries = try #require(settings.ignoredOverrides.first { $0.setting == "retries" })
        #expect(retries.reason.contains("1...10"), "\(retries.reason)")
    }

    #if os(Linux) && !APPLE_STAND_INS  // the Linux managed-configuration files (Apple platforms read MDM's dictionary)
        @Test("a managed-configuration file is checked: each refused value is listed with its reason")
        func managedConfigurationFile() throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent(
                "AppSettingsXDG-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let folder = root.appendingPathComponent("AppSettings/\(suite.name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(#"{"retries": 0, "theme": "dark", "level": 7, "audio": {"volume": 200, "muted": true}}"#.utf8)
                .write(to: folder.appendingPathComponent("AppSettings.SchemaSettings.json"))
            let sources = OverrideSources(
                arguments: [], environment: [:], managed: .configurationDirectories([root.path]))
            let (settings, lines) = AppSettingsLog.capture {
                OverrideSources.$current.withValue(sources) { SchemaSettings(userDefaults: suite.userDefaults) }
            }
            #expect(lines.count == 3, "\(lines)")
            #expect(settings.theme == .dark && settings.audio.muted)
            #expect(settings.retries == 3 && settings.level == .low && settings.audio.volume == 50)
            let ignored = Dictionary(uniqueKeysWithValues: settings.ignoredOverrides.map { ($0.setting, $0.reason) })
            #expect(Set(ignored.keys) == ["retries", "level", "audio.volume"])
            #expect(ignored["audio.volume"]?.contains("0...100") == true, "\(ignored)")
        }
    #endif

    @Test("the archive carries a compact schema the tool reads back, and a load never reads it")
    func storedSchema() throws {
        let settings = SchemaSettings(userDefaults: suite.userDefaults)
        settings.retries = 4
        try settings.synchronizeToUserDefaults()
        let data = try #require(suite.storedObject(forKey: settings.userDefaultsKey) as? Data)
        let read = try KeyedArchiveReader.settingsValues(of: data, readingSchema: true)
        let text = try #require(read.schemaText)
        let schema = try #require(StoredSchema(text: text, names: Array(read.values.keys), values: read.values))
        let names = read.values.keys.sorted()
        #expect(
            schema.text(forNames: names, values: read.values)
                == StoredSchema(settings.forms.schemaProperties()).text(forNames: names, values: read.values))
        #expect(text == schema.text(forNames: names, values: read.values))
        #expect(schema.properties.keys.sorted() == names)
        #expect(try KeyedArchiveReader.settingsValues(of: data).schemaText == nil)
        // The JSON Schema the tool prints is the class's, developer defaults included.
        let printed = try #require(
            try StoredSettingsInspector.schema(ofArchive: data, key: settings.userDefaultsKey, format: .json))
        #expect(printed == SchemaSettings.jsonSchema())
        #expect(try StoredSettingsInspector.schemaNote(ofArchive: data, key: settings.userDefaultsKey) == nil)
    }

    @Test("the compact schema of the benchmark's kinds of settings is small")
    func compactSize() throws {
        let properties = (0..<20).map { index in
            let nodes: [SchemaNode] = [
                .boolean, .integer(Int.self), .real(isFloat: false), .string, .date, .array(.string),
            ]
            return SchemaProperty(name: "setting\(index)", node: nodes[index % 6])
        }
        let schema = StoredSchema(properties)
        let text = schema.text(forNames: properties.map(\.name).sorted(), values: [:])
        #expect(text.utf8.count == 23, "\(text)")
        // Written as AppSettings 0.1.0 wrote it (no defaults), and read back as such.
        let read = try #require(StoredSchema(text: text, names: properties.map(\.name)))
        #expect(read.properties == schema.properties && read.lacksDefaults)
        // With the developer defaults the benchmark's kinds of settings have: a mark a setting
        // ("=": the stored value is the default), 29 bytes more; a default the set does not hold is
        // listed (all 20: 160 bytes more).
        // (In their JSON form as it reads back: `0.0` is written, and read, as `0`.)
        let defaults: [StoredValue] = [
            .bool(false), .integer(0), .integer(0), .string(""), .string("2001-01-01T00:00:00Z"), .array([]),
        ]
        let withDefaults = StoredSchema(
            properties.enumerated().map { index, property in
                var property = property
                property.defaultValue = defaults[index % 6]
                return property
            })
        var values: [String: StoredValue] = [:]
        for property in withDefaults.properties.values { values[property.name] = property.defaultValue }
        let longer = withDefaults.text(forNames: properties.map(\.name).sorted(), values: values)
        #expect(longer.utf8.count - text.utf8.count == 29, "\(longer)")
        #expect(StoredSchema(text: longer, names: properties.map(\.name), values: values) == withDefaults)
        let changed = values.mapValues { _ in StoredValue.string("changed") }
        let listing = withDefaults.text(forNames: properties.map(\.name).sorted(), values: changed)
        #expect(listing.utf8.count - text.utf8.count == 160, "\(listing)")
        #expect(StoredSchema(text: listing, names: properties.map(\.name), values: changed) == withDefaults)
    }

    @Test("the AppConfig specification lists the managed keys with their constraints")
    func appConfig() throws {
        let settings = SchemaSettings(userDefaults: suite.userDefaults)
        let xml = String(
            decoding: AppConfigSpecification.document(
                properties: settings.forms.schemaProperties(), key: settings.userDefaultsKey,
                bundleIdentifier: "com.example"),
            as: UTF8.self)
        #expect(xml.contains(#"<float keyName="AppSettings.SchemaSettings.soundLevel">"#))
        #expect(xml.contains(#"<constraint min="0" max="1"/>"#), "\(xml)")
        #expect(xml.contains(#"<value>light</value>"#) && xml.contains(#"<value>dark</value>"#))
        #expect(xml.contains(#"<integer keyName="AppSettings.SchemaSettings.audio.volume">"#))
        #expect(xml.contains(#"<string keyName="AppSettings.SchemaSettings.nickname">"#))
        #expect(xml.contains("Volume of sound effects"))
        #expect(xml.contains("Not expressible as AppConfig keys: AppSettings.SchemaSettings.limits"))
        #expect(XMLParser(data: Data(xml.utf8)).parse(), "not well-formed XML")
    }

    @Test("managed configuration in the AppConfig form: one key per setting beside the set's dictionary")
    func appConfigKeys() {
        suite.userDefaults.set(
            ["AppSettings.SchemaSettings.retries": 7, "AppSettings.SchemaSettings.audio.muted": true],
            forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        let sources = OverrideSources(
            arguments: [], environment: [:], managed: .managedAppConfiguration(suite.userDefaults))
        let settings = OverrideSources.$current.withValue(sources) { SchemaSettings(userDefaults: suite.userDefaults) }
        #expect(settings.retries == 7 && settings.audio.muted)
        #expect(settings.ignoredOverrides.isEmpty, "\(settings.ignoredOverrides)")
    }
}
