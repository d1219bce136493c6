import Foundation

/// The compact schema a stored set carries, as the archive's `$schema` field, so that the
/// `appsettings` tool (which has no settings classes) can check an edit and print the set's JSON
/// Schema: the one `jsonSchema()` returns, byte for byte.
///
/// One code per stored setting, in the order of their sorted stored names (the names are the
/// archive's own fields, not repeated), then, only when some setting has more to say, a newline
/// and a JSON object of it by position, and of the set under letters:
///
/// ```
/// b Bool   i Int, Int64   c h w Int8, Int16, Int32   u UInt, UInt64   C H W UInt8, UInt16, UInt32
/// f Float   d Double   s String   t Date   x Data   l URL   g UUID   * any (Codable)   0 not declared
/// ? optional   [ array or set   { dictionary        (prefixes: "?[s" is [String]?, "{i" [String: Int])
/// e choices (its raw form follows; "values" in the JSON)   n other integer bounds ("n" in the JSON)
/// shown in the Settings app: "a" in the JSON, [position, developer default, titles of choices]
/// checked by the app's validate: rule too: "k": 1 in the JSON
/// o settings object ("o" in the JSON: {name: form}, forms as below)
/// m a Codable value's form, as its JSON form below ("m" in the JSON: ["m", {member: form},
///   [required members]], or ["z", why it cannot be described])
/// "=": one mark per developer default of the declared settings, in their order (none for a
///      settings object, nor for a setting marked "-": its default has no JSON form): "=" the
///      setting holds its default (the stored value's JSON form is it), "v" the next one of "v"
/// "v": the developer defaults the settings do not hold, in their order
/// "V": the class's schema version, when the set was stored with another
///
/// "bidst[s\n{"3": {"in": [0, 1], "d": "Volume"}, "4": {"e": ["light", "dark"]}, "=": "=v====", "v": [3]}"
/// ```
///
/// A nested object's settings (rare) are written as JSON forms: `"b"`, `["?", form]`,
/// `["e", form, [values]]`, `["o", {name: setting}]`, `{"t": form, "in": [...], "d": "...", "v": default}`.
///
/// No class name is stored (a renamed class reads its set as it is): the JSON Schema's title is the
/// key's postfix, in `jsonSchema()` too. Sets stored by AppSettings 0.1.0 carry no `"="`, `"v"` or
/// `"V"`: their schema has no defaults (``lacksDefaults``) and its version is the set's. Readers
/// of 0.1.0 ignore the three. The JSON is read exactly (`JSONReader`): `Int64.min` stays an integer.
struct StoredSchema: Equatable {
    /// The declared settings' properties, by stored name.
    var properties: [String: SchemaProperty]
    /// The class's schema version, when the set was stored with another (the larger of the
    /// stored one and the class's is written).
    var schemaVersion: Int?
    /// Whether the schema was stored without developer defaults (by AppSettings 0.1.0): its JSON
    /// Schema then has no `default`.
    var lacksDefaults = false

    var sortedProperties: [SchemaProperty] { properties.values.sorted { $0.name < $1.name } }

    // MARK: Writing

    /// The text for a set of `names` (sorted as the archive sorts its fields) holding `values`.
    func text(forNames names: [String], values: [String: StoredValue]) -> String {
        let parts = parts(forNames: names)
        return parts.text { name, value in
            values[name]?.jsonForm == value ? nil : JSONForm.compactText(JSONForm.jsonValue(value))
        }
    }

    /// What a text holds but the marks of the defaults, which depend on the values: made once
    /// per class (`text(of:settings:schemaVersion:)`).
    private struct Parts {
        /// The codes, and the JSON of everything else but `"="` and `"v"`.
        var codes: String
        var extras: String?
        /// The JSON-form defaults of the declared settings that have one, in the order of `names`;
        /// `nil` for a schema without defaults (as 0.1.0 stored them, and tests make).
        var defaults: [(name: String, value: StoredValue)]?

        /// The text, with each default the stored value is marked `"="`, the others (those
        /// `listed` gives JSON text for) marked `"v"` and listed in `"v"`.
        func text(listing listed: (_ name: String, _ value: StoredValue) -> String?) -> String {
            guard let defaults else { return extras.map { codes + "\n" + $0 } ?? codes }
            var marks = ""
            var texts: [String] = []
            for (name, value) in defaults {
                if let text = listed(name, value) {
                    marks += "v"
                    texts.append(text)
                } else {
                    marks += "="
                }
            }
            var fields = #""=":"\#(marks)""#
            if !texts.isEmpty { fields += #","v":["# + texts.joined(separator: ",") + "]" }
            guard let extras else { return codes + "\n{" + fields + "}" }
            return codes + "\n" + extras.dropLast() + "," + fields + "}"
        }
    }

    private func parts(forNames names: [String]) -> Parts {
        var codes = ""
        var extras: [String: Any] = [:]
        var defaults: [(name: String, value: StoredValue)] = []
        // Schemas made without defaults (in tests) are written as 0.1.0 wrote them.
        let carriesDefaults = properties.values.contains { $0.defaultValue != nil }
        for (index, name) in names.enumerated() {
            guard let property = properties[name] else {
                codes += "0"
                continue
            }
            var extra = Self.details(of: property)
            codes += Self.code(of: property.node, extra: &extra)
            if let shown = property.settingsApp { extra["a"] = shown.compactForm }
            if let value = property.defaultValue {
                defaults.append((name, value))
            } else if carriesDefaults, property.node.hasDefault {
                extra["-"] = 1
            }
            if !extra.isEmpty { extras[String(index)] = extra }
        }
        if let schemaVersion { extras["V"] = schemaVersion }
        return Parts(
            codes: codes, extras: extras.isEmpty ? nil : JSONForm.compactText(extras),
            defaults: carriesDefaults ? defaults : nil)
    }

    /// A class's parts, with the stored form of each default and the JSON text of each.
    private struct CachedParts {
        var names: [String]
        var schemaVersion: Int?
        var parts: Parts
        var defaults: [String: (stored: StoredValue, text: String)]
    }

    private static let cache = Protected<[ObjectIdentifier: CachedParts]>([:])

    /// The parts of `object`'s class under `schemaVersion`, from the cache or made.
    private static func cachedParts(of object: AppSettingsObject, schemaVersion: Int?) -> CachedParts {
        let key = ObjectIdentifier(type(of: object))
        if let cached = cache.withLock({ $0[key] }), cached.schemaVersion == schemaVersion {
            return cached
        }
        let reset = object.forms.developerDefaults()
        var schema = StoredSchema(object.forms.schemaProperties(defaultsFrom: reset))
        schema.schemaVersion = schemaVersion
        let names = schema.properties.keys.sorted()
        var defaults: [String: (stored: StoredValue, text: String)] = [:]
        for slot in reset.slots where !slot.isConstant {
            guard let stored = slot.storedForm else { continue }
            defaults[slot.name] = (stored, JSONForm.compactText(JSONForm.jsonValue(stored.jsonForm)))
        }
        let made = CachedParts(
            names: names, schemaVersion: schemaVersion, parts: schema.parts(forNames: names),
            defaults: defaults)
        cache.withLock { $0[key] = made }
        return made
    }

    /// The text for `object`'s class, whose archive holds `settings`, written with `schemaVersion`.
    /// Its parts are made once per class, anew only when the set carries undeclared settings (equal
    /// counts mean equal names) or under another version; then each default is marked.
    static func text(
        of object: AppSettingsObject,
        settings: [String: StoredValue],
        schemaVersion: Int
    ) -> String {
        let classVersion = type(of: object).schemaVersion
        let version = schemaVersion == classVersion ? nil : classVersion
        let cached = cachedParts(of: object, schemaVersion: version)
        let listed = { (name: String, value: StoredValue) -> String? in
            guard let entry = cached.defaults[name] else { return JSONForm.compactText(JSONForm.jsonValue(value)) }
            return settings[name] == entry.stored ? nil : entry.text
        }
        guard cached.names.count != settings.count else { return cached.parts.text(listing: listed) }
        // Settings the class does not declare, carried over: positions move.
        var schema = StoredSchema(object.forms.schemaProperties())
        schema.schemaVersion = version
        return schema.parts(forNames: settings.keys.sorted()).text(listing: listed)
    }

    init(_ properties: [SchemaProperty]) {
        var byName: [String: SchemaProperty] = [:]
        for property in properties { byName[property.name] = property }
        self.properties = byName
    }

    private static let integerLetters: [Character: SchemaNode] = [
        "i": .integer(Int64.self), "c": .integer(Int8.self), "h": .integer(Int16.self), "w": .integer(Int32.self),
        "u": .integer(UInt64.self), "C": .integer(UInt8.self), "H": .integer(UInt16.self),
        "W": .integer(UInt32.self),
    ]

    static let scalarLetters: [Character: SchemaNode] = integerLetters.merging([
        "b": .boolean, "f": .real(isFloat: true), "d": .real(isFloat: false), "s": .string, "t": .date, "x": .data,
        "l": .url, "g": .uuid, "*": .any,
    ]) { first, _ in first }

    private static let lettersOfScalars: [SchemaNode: Character] = Dictionary(
        scalarLetters.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    /// The code of a form; what it cannot say goes into `extra`.
    private static func code(of node: SchemaNode, extra: inout [String: Any]) -> String {
        if let letter = lettersOfScalars[node] { return String(letter) }
        switch node {
        case .optional(let wrapped): return "?" + code(of: wrapped, extra: &extra)
        case .array(let element): return "[" + code(of: element, extra: &extra)
        case .dictionary(let element): return "{" + code(of: element, extra: &extra)
        case .choices(let raw, let values):
            extra["e"] = values.map(JSONForm.jsonValue)
            return "e" + code(of: raw, extra: &extra)
        case .integer(let minimum, let maximum):
            extra["n"] = [minimum, maximum]
            return "n"
        case .object(let properties):
            extra["o"] = compact(properties: properties)
            return "o"
        case .members, .undescribed:
            extra["m"] = compact(node)
            return "m"
        default: return "*"
        }
    }

    /// What a setting says besides its form and default: its range, description, `validate:` rule.
    private static func details(of property: SchemaProperty) -> [String: Any] {
        var details: [String: Any] = [:]
        if let range = property.range {
            details["in"] = [JSONForm.jsonValue(range.lowerBound), JSONForm.jsonValue(range.upperBound)]
        }
        if let description = property.description { details["d"] = description }
        if property.isCheckedByApp { details["k"] = 1 }
        return details
    }

    /// A nested object's settings by name, each its form alone or, when it says more, an entry.
    private static func compact(properties: [SchemaProperty]) -> [String: Any] {
        var byName: [String: Any] = [:]
        for property in properties {
            var entry = details(of: property)
            if let value = property.defaultValue { entry["v"] = JSONForm.jsonValue(value) }
            let node = compact(property.node)
            if !entry.isEmpty { entry["t"] = node }
            byName[property.name] = entry.isEmpty ? node : entry
        }
        return byName
    }

    /// The JSON forms of a nested object's settings use the same letters, as strings.
    static let scalarCodes: [String: SchemaNode] = Dictionary(
        uniqueKeysWithValues: scalarLetters.map { (String($0.key), $0.value) })

    private static let codesOfScalars: [SchemaNode: String] = Dictionary(
        scalarCodes.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    private static func compact(_ node: SchemaNode) -> Any {
        if let code = codesOfScalars[node] { return code }
        switch node {
        case .integer(let minimum, let maximum): return ["n", minimum, maximum]
        case .optional(let wrapped): return ["?", compact(wrapped)]
        case .array(let element): return ["[", compact(element)]
        case .dictionary(let element): return ["{", compact(element)]
        case .choices(let raw, let values): return ["e", compact(raw), values.map(JSONForm.jsonValue)]
        case .object(let properties): return ["o", compact(properties: properties)]
        case .members(let members):
            var byName: [String: Any] = [:]
            for member in members { byName[member.name] = compact(member.node) }
            return ["m", byName, members.filter(\.isRequired).map(\.name)]
        case .undescribed(let reason): return ["z", reason]
        default: return "*"
        }
    }
}

extension SettingsCodec.StoredSet {
    /// The schema the set carries (`$schema`); `nil` when it carries none this version reads.
    var storedSchema: StoredSchema? {
        schemaText.flatMap {
            StoredSchema(text: $0, names: Array(values.keys) + unreadable.map(\.name), values: values)
        }
    }
}

extension SchemaNode {
    /// Whether a setting of this form has a developer default of its own (a settings object's
    /// are its settings').
    var hasDefault: Bool {
        if case .object = self { return false }
        return true
    }
}

extension StoredValue {
    /// The entries of a dictionary; `nil` for any other value.
    var dictionaryEntries: [String: StoredValue]? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries
    }

    /// The text of a string; `nil` for any other value.
    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
