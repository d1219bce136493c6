import Foundation

extension StoredSchema {
    /// The schema `text` describes for a set of `names` holding `values` (where a default is
    /// marked as the stored value); `nil` when the text is not one this version reads (the tool
    /// then checks what it can without one).
    init?(text: String, names: [String], values: [String: StoredValue] = [:]) {
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        var extras: [String: StoredValue] = [:]
        if parts.count == 2 {
            // Read exactly, as documents are: a bound of `Int64.min` stays an integer.
            guard case .dictionary(let object)? = (try? JSONReader.value(from: Data(parts[1].utf8))).map(Self.doubles)
            else { return nil }
            extras = object
        }
        // One mark per default: "=" the stored value, "v" the next of the listed ones.
        var marks: Substring?
        if let value = extras["="] {
            guard let text = value.text else { return nil }
            marks = Substring(text)
        }
        var listed: ArraySlice<StoredValue> = []
        if case .array(let values)? = extras["v"] { listed = values[...] }
        var codes = Substring(parts.first ?? "")
        var byName: [String: SchemaProperty] = [:]
        for (index, name) in names.sorted().enumerated() {
            if codes.first == "0" {  // carried over, undeclared
                codes.removeFirst()
                continue
            }
            let extra = extras[String(index)]?.dictionaryEntries ?? [:]
            guard let node = Self.node(from: &codes, extra: extra) else { return nil }
            var property = SchemaProperty(name: name, node: node, description: extra["d"]?.text)
            property.range = Self.range(from: extra["in"])
            property.isCheckedByApp = extra["k"] != nil
            if let shown = extra["a"] {
                guard let entry = SettingsAppEntry(compactForm: shown) else { return nil }
                property.settingsApp = entry
            }
            if marks != nil, node.hasDefault, extra["-"] == nil {
                switch marks?.popFirst() {
                case "=": property.defaultValue = values[name]?.jsonForm  // none when it cannot be read
                case "v":
                    guard let value = listed.popFirst() else { return nil }
                    property.defaultValue = value
                default: return nil
                }
            }
            byName[name] = property
        }
        guard codes.isEmpty, marks?.isEmpty ?? true, listed.isEmpty else { return nil }
        properties = byName
        schemaVersion = extras["V"].flatMap(Self.integer)
        lacksDefaults = marks == nil && byName.values.contains { $0.node.hasDefault }
    }

    /// `value` with each number the reader kept as text (`0.5`, `3.4028235e+38`) as the `Double`
    /// the class wrote it from, so that the JSON Schema made from it has the class's bytes.
    private static func doubles(_ value: StoredValue) -> StoredValue {
        switch value {
        case .numberText(let text): Double(text).map { .double($0) } ?? value
        case .array(let values): .array(values.map(doubles))
        case .dictionary(let entries): .dictionary(entries.mapValues(doubles))
        default: value
        }
    }

    private static func node(from codes: inout Substring, extra: [String: StoredValue]) -> SchemaNode? {
        guard let letter = codes.popFirst() else { return nil }
        if let scalar = scalarLetters[letter] { return scalar }
        switch letter {
        case "?": return node(from: &codes, extra: extra).map { .optional($0) }
        case "[": return node(from: &codes, extra: extra).map { .array($0) }
        case "{": return node(from: &codes, extra: extra).map { .dictionary($0) }
        case "e":
            guard let raw = node(from: &codes, extra: extra), case .array(let values)? = extra["e"] else { return nil }
            return .choices(raw, values)
        case "n":
            guard case .array(let bounds)? = extra["n"] else { return nil }
            return integerNode(bounds)
        case "o":
            return extra["o"].flatMap { node(from: .array([.string("o"), $0])) }
        case "m":
            return extra["m"].flatMap(node(from:))
        default: return nil
        }
    }

    /// The integer form of `[minimum, maximum]`.
    private static func integerNode(_ bounds: [StoredValue]) -> SchemaNode? {
        guard bounds.count == 2, let minimum = integer(bounds[0]).flatMap(Int64.init(exactly:)),
            let maximum = unsigned(bounds[1])
        else { return nil }
        return .integer(minimum: minimum, maximum: maximum)
    }

    private static func integer(_ value: StoredValue) -> Int? {
        guard case .integer(let integer) = value else { return nil }
        return Int(exactly: integer)
    }

    private static func unsigned(_ value: StoredValue) -> UInt64? {
        switch value {
        case .integer(let integer): UInt64(exactly: integer)
        case .unsignedInteger(let integer): integer
        default: nil
        }
    }

    private static func range(from bounds: StoredValue?) -> SchemaRange? {
        guard case .array(let bounds)? = bounds, bounds.count == 2 else { return nil }
        return SchemaRange(lowerBound: bounds[0], upperBound: bounds[1])
    }

    private static func property(named name: String, from entry: StoredValue) -> SchemaProperty? {
        guard case .dictionary(let dictionary) = entry else {
            return node(from: entry).map { SchemaProperty(name: name, node: $0) }
        }
        guard let form = dictionary["t"], let node = node(from: form) else { return nil }
        var property = SchemaProperty(name: name, node: node, description: dictionary["d"]?.text)
        property.range = range(from: dictionary["in"])
        property.isCheckedByApp = dictionary["k"] != nil
        property.defaultValue = dictionary["v"]
        return property
    }

    private static func node(from form: StoredValue) -> SchemaNode? {
        if case .string(let code) = form { return scalarCodes[code] }
        guard case .array(let parts) = form, case .string(let tag)? = parts.first, parts.count >= 2 else { return nil }
        switch (tag, parts.count) {
        case ("?", 2): return node(from: parts[1]).map { .optional($0) }
        case ("[", 2): return node(from: parts[1]).map { .array($0) }
        case ("{", 2): return node(from: parts[1]).map { .dictionary($0) }
        case ("n", 3): return integerNode(Array(parts[1...]))
        case ("e", 3):
            guard let raw = node(from: parts[1]), case .array(let values) = parts[2] else { return nil }
            return .choices(raw, values)
        case ("o", 2):
            guard case .dictionary(let settings) = parts[1] else { return nil }
            var properties: [SchemaProperty] = []
            for (name, entry) in settings.sorted(by: { $0.key < $1.key }) {
                guard let property = property(named: name, from: entry) else { return nil }
                properties.append(property)
            }
            return .object(properties)
        case ("m", 3):
            guard case .dictionary(let forms) = parts[1], case .array(let required) = parts[2] else { return nil }
            let requiredNames = Set(required.compactMap(\.text))
            var members: [SchemaMember] = []
            for (name, form) in forms.sorted(by: { $0.key < $1.key }) {
                guard let node = node(from: form) else { return nil }
                members.append(SchemaMember(name: name, node: node, isRequired: requiredNames.contains(name)))
            }
            return .members(members)
        case ("z", 2): return parts[1].text.map { .undescribed($0) }
        default: return nil
        }
    }
}
