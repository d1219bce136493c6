import Foundation

/// The compact schema a stored set carries, as the archive's `$schema` field, so that the
/// `appsettings` tool (which has no settings classes) can check an edit and print the set's JSON
/// Schema.
///
/// One code per stored setting, in the order of their sorted stored names (the names are the
/// archive's own fields, not repeated), then, only when some setting has more to say, a newline
/// and a JSON object of it by position:
///
/// ```
/// b Bool   i Int, Int64   c h w Int8, Int16, Int32   u UInt, UInt64   C H W UInt8, UInt16, UInt32
/// f Float   d Double   s String   t Date   x Data   l URL   g UUID   * any (Codable)   0 not declared
/// ? optional   [ array or set   { dictionary        (prefixes: "?[s" is [String]?, "{i" [String: Int])
/// e choices (its raw form follows; "values" in the JSON)   n other integer bounds ("n" in the JSON)
/// shown in the Settings app: "a" in the JSON, [position, developer default, titles of choices]
/// o settings object ("o" in the JSON: {name: form}, forms as below)
///
/// "bidst[s\n{"3": {"in": [0, 1], "d": "Volume"}, "4": {"e": ["light", "dark"]}}"
/// ```
///
/// A nested object's settings (rare) are written as JSON forms: `"b"`, `["?", form]`,
/// `["e", form, [values]]`, `["o", {name: setting}]`, `{"t": form, "in": [...], "d": "..."}`.
///
/// The 20-setting set of the benchmark (Bool, Int, Double, String, Date, [String]) carries 23
/// bytes of it. Developer defaults are not carried (the tool's schema has no `default`), but for
/// the settings shown in the Settings app, whose page the tool makes (`Internal/SettingsApp`).
struct StoredSchema: Equatable {
    /// The declared settings' properties, by stored name (no defaults).
    var properties: [String: SchemaProperty]

    /// The properties in name order.
    var sortedProperties: [SchemaProperty] { properties.values.sorted { $0.name < $1.name } }

    // MARK: Writing

    /// The text for a set of `names` (sorted as the archive sorts its fields).
    func text(forNames names: [String]) -> String {
        var codes = ""
        var extras: [String: Any] = [:]
        for (index, name) in names.enumerated() {
            guard let property = properties[name] else {
                codes += "0"
                continue
            }
            var extra: [String: Any] = [:]
            codes += Self.code(of: property.node, extra: &extra)
            if let range = property.range {
                extra["in"] = [JSONForm.jsonValue(range.lowerBound), JSONForm.jsonValue(range.upperBound)]
            }
            if let description = property.description { extra["d"] = description }
            if let shown = property.settingsApp { extra["a"] = shown.compactForm }
            if !extra.isEmpty { extras[String(index)] = extra }
        }
        return extras.isEmpty ? codes : codes + "\n" + JSONForm.compactText(extras)
    }

    private static let cache = Protected<[ObjectIdentifier: (names: [String], text: String)]>([:])

    /// The text for `object`'s class, whose archive holds `names`: made once per class for its
    /// declared settings; made anew only when the set carries settings the class does not declare
    /// (every declared setting is always in the archive, so equal counts mean equal names).
    static func text(of object: AppSettingsObject, names: Dictionary<String, StoredValue>.Keys) -> String {
        let key = ObjectIdentifier(type(of: object))
        if let cached = cache.withLock({ $0[key] }), cached.names.count == names.count {
            return cached.text
        }
        let schema = StoredSchema(object.schemaProperties(includingDefaults: false))
        let declared = schema.properties.keys.sorted()
        let text = schema.text(forNames: declared)
        cache.withLock { $0[key] = (declared, text) }
        if declared.count == names.count { return text }
        return schema.text(forNames: names.sorted())
    }

    init(_ properties: [SchemaProperty]) {
        var byName: [String: SchemaProperty] = [:]
        for property in properties { byName[property.name] = property.withoutDefaults }
        self.properties = byName
    }

    private static let integerLetters: [Character: SchemaNode] = [
        "i": .integer(Int64.self), "c": .integer(Int8.self), "h": .integer(Int16.self), "w": .integer(Int32.self),
        "u": .integer(UInt64.self), "C": .integer(UInt8.self), "H": .integer(UInt16.self),
        "W": .integer(UInt32.self),
    ]

    private static let scalarLetters: [Character: SchemaNode] = integerLetters.merging([
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
            var byName: [String: Any] = [:]
            for property in properties { byName[property.name] = compact(property: property) }
            extra["o"] = byName
            return "o"
        default: return "*"
        }
    }

    private static func compact(property: SchemaProperty) -> Any {
        // Defaults are not carried (they are the class's, not the set's).
        let node = compact(property.node)
        guard property.range != nil || property.description != nil else { return node }
        var entry: [String: Any] = ["t": node]
        if let range = property.range {
            entry["in"] = [JSONForm.jsonValue(range.lowerBound), JSONForm.jsonValue(range.upperBound)]
        }
        if let description = property.description { entry["d"] = description }
        return entry
    }

    /// The JSON forms of a nested object's settings use the same letters, as strings.
    private static let scalarCodes: [String: SchemaNode] = Dictionary(
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
        case .object(let properties):
            var byName: [String: Any] = [:]
            for property in properties { byName[property.name] = compact(property: property) }
            return ["o", byName]
        default: return "*"
        }
    }

    // MARK: Reading

    /// The schema `text` describes for a set of `names`; `nil` when the text is not one this
    /// version reads (the tool then checks what it can without one).
    init?(text: String, names: [String]) {
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        var extras: [String: Any] = [:]
        if parts.count == 2 {
            guard let object = try? JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any]
            else { return nil }
            extras = object
        }
        var codes = Substring(parts.first ?? "")
        var byName: [String: SchemaProperty] = [:]
        for (index, name) in names.sorted().enumerated() {
            if codes.first == "0" {  // carried over, undeclared
                codes.removeFirst()
                continue
            }
            let extra = extras[String(index)] as? [String: Any] ?? [:]
            guard let node = Self.node(from: &codes, extra: extra) else { return nil }
            var property = SchemaProperty(name: name, node: node, description: extra["d"] as? String)
            property.range = Self.range(from: extra["in"])
            property.settingsApp = extra["a"].flatMap(SettingsAppEntry.init(compactForm:))
            byName[name] = property
        }
        guard codes.isEmpty else { return nil }
        properties = byName
    }

    private static func node(from codes: inout Substring, extra: [String: Any]) -> SchemaNode? {
        guard let letter = codes.popFirst() else { return nil }
        if let scalar = scalarLetters[letter] { return scalar }
        switch letter {
        case "?": return node(from: &codes, extra: extra).map { .optional($0) }
        case "[": return node(from: &codes, extra: extra).map { .array($0) }
        case "{": return node(from: &codes, extra: extra).map { .dictionary($0) }
        case "e":
            guard let raw = node(from: &codes, extra: extra), let values = extra["e"] as? [Any] else { return nil }
            return .choices(raw, values.compactMap(JSONForm.storedValue(fromJSON:)))
        case "n":
            guard let bounds = extra["n"] as? [Any], bounds.count == 2,
                let minimum = (bounds[0] as? NSNumber)?.int64Value, let maximum = (bounds[1] as? NSNumber)?.uint64Value
            else { return nil }
            return .integer(minimum: minimum, maximum: maximum)
        case "o":
            return extra["o"].flatMap { node(from: ["o", $0]) }
        default: return nil
        }
    }

    private static func range(from bounds: Any?) -> SchemaRange? {
        guard let bounds = bounds as? [Any], bounds.count == 2, let lower = JSONForm.storedValue(fromJSON: bounds[0]),
            let upper = JSONForm.storedValue(fromJSON: bounds[1])
        else { return nil }
        return SchemaRange(lowerBound: lower, upperBound: upper)
    }

    private static func property(named name: String, from entry: Any) -> SchemaProperty? {
        guard let dictionary = entry as? [String: Any] else {
            return node(from: entry).map { SchemaProperty(name: name, node: $0) }
        }
        guard let form = dictionary["t"], let node = node(from: form) else { return nil }
        var property = SchemaProperty(name: name, node: node, description: dictionary["d"] as? String)
        property.range = range(from: dictionary["in"])
        return property
    }

    private static func node(from form: Any) -> SchemaNode? {
        if let code = form as? String { return scalarCodes[code] }
        guard let parts = form as? [Any], let tag = parts.first as? String, parts.count >= 2 else { return nil }
        switch (tag, parts.count) {
        case ("?", 2): return node(from: parts[1]).map { .optional($0) }
        case ("[", 2): return node(from: parts[1]).map { .array($0) }
        case ("{", 2): return node(from: parts[1]).map { .dictionary($0) }
        case ("n", 3):
            guard let minimum = (parts[1] as? NSNumber)?.int64Value, let maximum = (parts[2] as? NSNumber)?.uint64Value
            else { return nil }
            return .integer(minimum: minimum, maximum: maximum)
        case ("e", 3):
            guard let raw = node(from: parts[1]), let values = parts[2] as? [Any] else { return nil }
            return .choices(raw, values.compactMap(JSONForm.storedValue(fromJSON:)))
        case ("o", 2):
            guard let settings = parts[1] as? [String: Any] else { return nil }
            var properties: [SchemaProperty] = []
            for (name, entry) in settings.sorted(by: { $0.key < $1.key }) {
                guard let property = property(named: name, from: entry) else { return nil }
                properties.append(property)
            }
            return .object(properties)
        default: return nil
        }
    }
}

extension SchemaProperty {
    /// The property without developer defaults, its nested settings' included.
    var withoutDefaults: SchemaProperty {
        var property = self
        property.defaultValue = nil
        property.node = node.withoutDefaults
        return property
    }
}

extension SchemaNode {
    var withoutDefaults: SchemaNode {
        switch self {
        case .optional(let wrapped): .optional(wrapped.withoutDefaults)
        case .array(let element): .array(element.withoutDefaults)
        case .dictionary(let element): .dictionary(element.withoutDefaults)
        case .object(let properties): .object(properties.map(\.withoutDefaults))
        default: self
        }
    }
}
