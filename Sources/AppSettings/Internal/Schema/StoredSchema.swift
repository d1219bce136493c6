import Foundation

/// The compact schema a stored set carries, as the archive's `$schema` field, so that the
/// `appsettings` tool (which has no settings classes) can check an edit and print the set's JSON
/// Schema.
///
/// It is JSON text: an array with one entry per stored setting, in the order of their sorted
/// stored names (the names are the archive's own fields, not repeated), each the setting's form:
///
/// ```
/// "b" Bool   "i" Int/Int64   "i8" "i16" "i32"   "u" UInt/UInt64   "u8" "u16" "u32"
/// "f" Float   "d" Double   "s" String   "t" Date   "x" Data   "l" URL   "g" UUID   "*" any
/// ["?", form] optional   ["[", form] array or set   ["{", form] dictionary
/// ["e", form, [raw values]] choices   ["o", {name: setting}] settings object
/// {"t": form, "in": [lower, upper], "d": "description"} a setting with a range or a description
/// 0 a stored setting the class does not declare (carried over)
/// ```
///
/// The 20-setting set of the benchmark (Bool, Int, Double, String, Date, [String]) carries 99
/// bytes of it. Developer defaults are not carried: the tool's schema has no `default`.
struct StoredSchema: Equatable {
    /// The declared settings' properties, by stored name (no defaults).
    var properties: [String: SchemaProperty]

    /// The properties in name order.
    var sortedProperties: [SchemaProperty] { properties.values.sorted { $0.name < $1.name } }

    // MARK: Writing

    /// The text for a set of `names` (sorted as the archive sorts its fields).
    func text(forNames names: [String]) -> String {
        let entries: [Any] = names.map { name in properties[name].map(Self.compact(property:)) ?? 0 }
        return JSONForm.compactText(entries)
    }

    private static let cache = Protected<[ObjectIdentifier: (names: [String], text: String)]>([:])

    /// The text for `object`'s class, whose archive holds `names`: made once per class for its
    /// declared settings; made anew only when the set carries settings the class does not declare.
    static func text(of object: AppSettingsObject, names: Dictionary<String, _StoredValue>.Keys) -> String {
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

    private static let integerCodes: [String: SchemaNode] = [
        "i": .integer(Int64.self), "i8": .integer(Int8.self), "i16": .integer(Int16.self),
        "i32": .integer(Int32.self), "u": .integer(UInt64.self), "u8": .integer(UInt8.self),
        "u16": .integer(UInt16.self), "u32": .integer(UInt32.self),
    ]

    private static let scalarCodes: [String: SchemaNode] = integerCodes.merging([
        "b": .boolean, "f": .real(isFloat: true), "d": .real(isFloat: false), "s": .string, "t": .date, "x": .data,
        "l": .url, "g": .uuid, "*": .any,
    ]) { first, _ in first }

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
        guard let entries = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any],
            entries.count == names.count
        else { return nil }
        var byName: [String: SchemaProperty] = [:]
        for (name, entry) in zip(names.sorted(), entries) {
            if (entry as? NSNumber) == 0, !(entry is String) { continue }  // carried over, undeclared
            guard let property = Self.property(named: name, from: entry) else { return nil }
            byName[name] = property
        }
        properties = byName
    }

    private static func property(named name: String, from entry: Any) -> SchemaProperty? {
        guard let dictionary = entry as? [String: Any] else {
            return node(from: entry).map { SchemaProperty(name: name, node: $0) }
        }
        guard let form = dictionary["t"], let node = node(from: form) else { return nil }
        var property = SchemaProperty(name: name, node: node, description: dictionary["d"] as? String)
        if let bounds = dictionary["in"] as? [Any], bounds.count == 2,
            let lower = JSONForm.storedValue(fromJSON: bounds[0]), let upper = JSONForm.storedValue(fromJSON: bounds[1])
        {
            property.range = SchemaRange(lowerBound: lower, upperBound: upper)
        }
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
