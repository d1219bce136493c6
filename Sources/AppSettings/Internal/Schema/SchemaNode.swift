import Foundation

/// The JSON form a setting's type has (its witness's `schemaNode`, `Values/SettingWitness`).
indirect enum SchemaNode: Sendable, Hashable {
    case boolean
    /// An integer of a fixed-width type: its bounds.
    case integer(minimum: Int64, maximum: UInt64)
    /// A `Float` (`isFloat`) or a `Double`: a number, or `"nan"`, `"inf"`, `"-inf"`.
    case real(isFloat: Bool)
    case string
    /// ISO 8601 text.
    case date
    /// Base64 text (`Data`, an `NSSecureCoding` value).
    case data
    case url
    case uuid
    /// Any JSON value: a value whose form a set stored before AppSettings described `Codable`
    /// values does not say, or a new entry's in the tool.
    case any
    /// A `Codable` value's object: its members, and no others (`StoredValueDecoder`).
    case members([SchemaMember])
    /// A value whose form the library cannot describe, and why (`StoredValueDecoder`): any JSON
    /// value passes the schema, which says so; the type's decoding checks it.
    case undescribed(String)
    case optional(SchemaNode)
    /// An array (or a `Set`) of elements.
    case array(SchemaNode)
    /// A `String`-keyed dictionary of values.
    case dictionary(SchemaNode)
    /// One of the raw values of a `CaseIterable` `RawRepresentable` type, in their JSON form.
    case choices(SchemaNode, [StoredValue])
    /// A settings object: its settings, in declaration order.
    case object([SchemaProperty])
}

/// One member of a `Codable` value's object: required unless the type reads it only when present.
struct SchemaMember: Sendable, Hashable {
    var name: String
    var node: SchemaNode
    var isRequired: Bool
}

/// One setting of a settings object, as its schema describes it.
struct SchemaProperty: Sendable, Hashable {
    var name: String
    var node: SchemaNode
    /// The bounds of `@Setting(in:)`, in their JSON form (a number, or ISO 8601 text for a date).
    var range: SchemaRange?
    var description: String?
    /// The developer default in its JSON form; only the class knows it (the archive does not carry it).
    var defaultValue: StoredValue?
    /// What `@Setting(inSettingsApp: true)` adds (`Internal/SettingsApp`); `nil` for a setting not shown.
    var settingsApp: SettingsAppEntry?
    /// Whether the declaration has a `validate:` rule: the app checks the value too, as no schema can.
    var isCheckedByApp = false
}

/// The closed range of `@Setting(in:)`, both bounds in their JSON form.
struct SchemaRange: Sendable, Hashable {
    var lowerBound: StoredValue
    var upperBound: StoredValue

    /// `0.0...1.0`, `1...10`: the range as messages name it.
    var text: String { "\(JSONForm.description(of: lowerBound))...\(JSONForm.description(of: upperBound))" }

    /// Whether a JSON-form value lies in the range; `nil` when it is not of the range's kind.
    /// Integers are compared exactly (`9007199254740993` is not in `0...9007199254740992`), other
    /// numbers as the `Double` nearest them, the value a real setting holds.
    func contains(_ value: StoredValue) -> Bool? {
        switch (lowerBound, value) {
        case (.string(let lower), .string(let text)):
            guard case .string(let upper) = upperBound, let date = TextForms.date(fromText: text),
                let low = TextForms.date(fromText: lower), let high = TextForms.date(fromText: upper)
            else { return nil }
            return low <= date && date <= high
        default:
            if let integer = value.exactInteger, let low = lowerBound.exactInteger, let high = upperBound.exactInteger {
                return Self.isOrdered(low, integer) && Self.isOrdered(integer, high)
            }
            // A number read from text, by its digits against the bounds as the schema writes them.
            if case .numberText(let text) = value,
                let low = TextForms.compare(numberText: text, JSONForm.description(of: lowerBound)),
                let high = TextForms.compare(numberText: text, JSONForm.description(of: upperBound))
            {
                return low != .orderedAscending && high != .orderedDescending
            }
            guard let number = value.jsonNumber, let low = lowerBound.jsonNumber, let high = upperBound.jsonNumber
            else { return nil }
            return low <= number && number <= high
        }
    }

    /// Whether the integer `left` is at most `right` (both `exactInteger`s).
    private static func isOrdered(_ left: StoredValue, _ right: StoredValue) -> Bool {
        switch (left, right) {
        case (.integer(let left), .integer(let right)): left <= right
        case (.integer(let left), .unsignedInteger(let right)): left < 0 || UInt64(left) <= right
        case (.unsignedInteger(let left), .integer(let right)): right >= 0 && left <= UInt64(right)
        case (.unsignedInteger(let left), .unsignedInteger(let right)): left <= right
        default: false
        }
    }
}

extension StoredValue {
    /// A JSON number as a `Double` (integers beyond 2^53 rounded, which bounds of `Double`
    /// precision compare correctly with); `nil` for anything else.
    var jsonNumber: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .numberText(let text): Double(text)
        case .double(let value): value
        case .float(let value): Double(value)
        default: nil
        }
    }

    /// The value as a document holds it: the JSON form of a stored value, read back as JSON gives it.
    var jsonForm: StoredValue {
        if case .numberText = self { return self }
        return StoredValue(propertyListValue: JSONForm.jsonValue(self)) ?? self
    }

    /// The integer of 64 bits a number is exactly (`5`, `5.0` as text or as a `Double`, `5e0`), as
    /// `.integer` (`.unsignedInteger` above `Int64.max`); `nil` for any other value.
    var exactInteger: StoredValue? {
        switch self {
        case .integer: self
        case .unsignedInteger(let value): Int64(exactly: value).map(StoredValue.integer) ?? self
        case .double(let value):
            Int64(exactly: value).map(StoredValue.integer) ?? UInt64(exactly: value).map(StoredValue.unsignedInteger)
        case .float(let value): Self.double(Double(value)).exactInteger
        case .numberText(let text): TextForms.integer(fromNumberText: text)
        default: nil
        }
    }

    /// The value with every number read from text as what it is: an integer of 64 bits exactly,
    /// any other as the `Double` nearest it.
    var withNumberTextRead: StoredValue {
        switch self {
        case .numberText(let text): exactInteger ?? Double(text).map { .double($0) } ?? self
        case .array(let values): .array(values.map(\.withNumberTextRead))
        case .set(let values): .set(values.map(\.withNumberTextRead))
        case .dictionary(let entries): .dictionary(entries.mapValues(\.withNumberTextRead))
        default: self
        }
    }
}

extension SchemaNode {
    static func integer<T: FixedWidthInteger>(_ type: T.Type) -> SchemaNode {
        .integer(minimum: Int64(truncatingIfNeeded: T.min), maximum: UInt64(truncatingIfNeeded: T.max))
    }

    /// Whether the form says what a value may be: neither any value nor one the library cannot
    /// describe.
    var isDescribed: Bool {
        switch unwrapped.node {
        case .any, .undescribed: false
        default: true
        }
    }

    /// The form, but an object of members (at any depth) takes some of them: the tool merges
    /// what it is given with what is stored.
    var takingSomeMembers: SchemaNode {
        switch self {
        case .optional(let wrapped): .optional(wrapped.takingSomeMembers)
        case .members(let members):
            .members(members.map { SchemaMember(name: $0.name, node: $0.node.takingSomeMembers, isRequired: false) })
        default: self
        }
    }

    /// The node without its optional wrapping, and whether there was one.
    var unwrapped: (node: SchemaNode, isOptional: Bool) {
        if case .optional(let wrapped) = self { return (wrapped.unwrapped.node, true) }
        return (self, false)
    }
}

// MARK: - Checking a JSON value

/// A value a schema refuses: where, what was expected, what was found (the value's JSON text).
struct SchemaProblem: Error, Equatable {
    var path: String
    var expected: String
    var found: String
    /// Whether `path` names no setting (`expected` is then "no such setting").
    var isUnknownSetting = false

    /// The error a document, an override or the tool throws for it: the same words everywhere.
    func error(key: String) -> AppSettingsError {
        isUnknownSetting
            ? .unknownSetting(key: key, setting: path)
            : .invalidJSONValue(setting: path, expected: expected, found: found)
    }
}

extension SchemaNode {
    /// Why a value, as JSON gives it, is not of this form; `nil` when it is. `path` names the
    /// value (`audio.volume`, `tags[2]`).
    func problem(with value: StoredValue, path: String) -> SchemaProblem? {
        func refused(_ expected: String) -> SchemaProblem {
            SchemaProblem(path: path, expected: expected, found: JSONForm.description(of: value))
        }
        switch (self, value) {
        case (.any, _): return nil
        case (.optional, .null): return nil
        case (.optional(let wrapped), _):
            guard var problem = wrapped.problem(with: value, path: path) else { return nil }
            // The value itself refused: null would have done too.
            if problem.path == path, problem.expected == wrapped.expectedText { problem.expected = expectedText }
            return problem
        case (_, .null): return refused(expectedText + " (the setting is not optional)")
        case (.boolean, .bool): return nil
        case (.integer, .integer), (.integer, .unsignedInteger), (.integer, .double), (.integer, .numberText):
            return fitsInteger(value) ? nil : refused(expectedText)
        case (.real(let isFloat), .integer), (.real(let isFloat), .unsignedInteger), (.real(let isFloat), .double),
            (.real(let isFloat), .numberText):
            guard let number = value.jsonNumber, TextForms.isInRange(number, isFloat: isFloat),
                TextForms.isInRange(numberText: value, isFloat: isFloat)
            else { return refused(expectedText) }
            return nil
        case (.real, .string(let text)): return ["nan", "inf", "-inf"].contains(text) ? nil : refused(expectedText)
        case (.string, .string): return nil
        case (.url, .string(let text)): return TextForms.url(fromText: text) == nil ? refused(expectedText) : nil
        case (.date, .string(let text)): return TextForms.dateProblem(text).map { refused(expectedText + $0) }
        case (.data, .string(let text)): return TextForms.data(fromBase64: text) == nil ? refused(expectedText) : nil
        case (.uuid, .string(let text)): return UUID(uuidString: text) == nil ? refused(expectedText) : nil
        case (.array(let element), .array(let elements)):
            for (index, item) in elements.enumerated() {
                if let problem = element.problem(with: item, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.dictionary(let element), .dictionary(let entries)):
            for (key, item) in entries.sorted(by: { $0.key < $1.key }) {
                if let problem = element.problem(with: item, path: "\(path).\(key)") { return problem }
            }
            return nil
        case (.choices(let raw, let values), _):
            if let problem = raw.problem(with: value, path: path) { return problem }
            return values.contains(where: { $0.isSameJSONValue(as: value) }) ? nil : refused(expectedText)
        case (.object(let properties), .dictionary(let entries)):
            return Self.problem(with: entries, properties: properties, prefix: path + ".")
        case (.undescribed, _): return nil
        case (.members(let members), .dictionary(let entries)):
            // A member the type does not have, or one it needs that is missing, named.
            let names = Set(members.map(\.name))
            if let unknown = entries.keys.sorted().first(where: { !names.contains($0) }) {
                return refused(expectedText + " (no member '\(unknown)')")
            }
            if let missing = members.first(where: { $0.isRequired && entries[$0.name] == nil }) {
                return refused(expectedText + " (missing '\(missing.name)')")
            }
            for member in members {
                guard let entry = entries[member.name] else { continue }
                if entry == .null, !member.node.unwrapped.isOptional {
                    return SchemaProblem(
                        path: path + "." + member.name, expected: member.node.expectedText + " (not optional)",
                        found: "null")
                }
                if let problem = member.node.problem(with: entry, path: path + "." + member.name) { return problem }
            }
            return nil
        default:
            return refused(expectedText)
        }
    }

    /// Whether a JSON number is an integer within this integer form's bounds, read from its
    /// digits (`9223372036854775808.0` is not an `Int64`, though it rounds to `Int64.max` as a
    /// `Double`; `1.00000000000000000001` is no integer, though it rounds to 1).
    private func fitsInteger(_ value: StoredValue) -> Bool {
        guard case .integer(let minimum, let maximum) = self else { return false }
        switch value.exactInteger {
        case .integer(let integer)?: return integer >= minimum && (integer < 0 || UInt64(integer) <= maximum)
        case .unsignedInteger(let integer)?: return integer <= maximum
        default: return false
        }
    }

    /// Why a JSON object of settings does not fit `properties`: an unknown name, a value of the
    /// wrong form or outside its range; `nil` when it fits. Names are checked in sorted order.
    static func problem(
        with entries: [String: StoredValue],
        properties: [SchemaProperty],
        prefix: String
    ) -> SchemaProblem? {
        var byName: [String: SchemaProperty] = [:]
        for property in properties { byName[property.name] = property }
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let property = byName[name] else {
                return SchemaProblem(
                    path: prefix + name, expected: "no such setting", found: JSONForm.description(of: value),
                    isUnknownSetting: true)
            }
            if let problem = property.problem(with: value, path: prefix + name) { return problem }
        }
        return nil
    }

    /// What a ranged form is, without its type's bounds: `an integer` (`in 1...10` follows).
    var rangedKindText: String {
        switch self {
        case .integer: "an integer"
        case .real: "a number"
        case .date: "an ISO 8601 date and time"
        default: expectedText
        }
    }

    /// What the form is, in words, for messages.
    var expectedText: String {
        switch self {
        case .boolean: "a Boolean"
        case .integer(let minimum, let maximum): "an integer in \(minimum)...\(maximum)"
        case .real(let isFloat):
            "a number in \(isFloat ? "Float" : "Double")'s range (or \"nan\", \"inf\", \"-inf\")"
        case .string: "a string"
        case .date: "an ISO 8601 date and time with a time zone"
        case .data: "canonical base64 text"
        case .url: "a URL (no spaces, not empty)"
        case .uuid: "a UUID string"
        case .any: "any value"
        case .optional(let wrapped): "\(wrapped.expectedText) or null"
        case .array(let element): "an array of \(element.expectedText)"
        case .dictionary(let element): "an object of \(element.expectedText)"
        case .choices(_, let values): "one of \(values.map(JSONForm.description(of:)).joined(separator: ", "))"
        case .object: "an object of settings"
        case .members(let members):
            members.isEmpty
                ? "an empty object"
                : "an object with the members "
                    + members.map { $0.isRequired ? $0.name : $0.name + " (optional)" }.joined(separator: ", ")
        case .undescribed: "any value"
        }
    }
}

extension SchemaProperty {
    /// Why a value (as JSON gives it) does not fit this setting: its form, then its range. A
    /// refusal of the setting's own value says what its declaration accepts (`an integer in
    /// 1...10`), its range rather than its type's.
    func problem(with value: StoredValue, path: String) -> SchemaProblem? {
        if var problem = node.problem(with: value, path: path) {
            if range != nil, problem.path == path {
                problem.expected = expectedText + (value == .null ? " (the setting is not optional)" : "")
            }
            return problem
        }
        guard let range, value != .null, range.contains(value) != true else { return nil }
        return SchemaProblem(path: path, expected: expectedText, found: JSONForm.description(of: value))
    }

    /// What the setting accepts, in words: its range when it has one (`an integer in 1...10`,
    /// `a number in 0...1 or null`), else its form's (`SchemaNode.expectedText`).
    var expectedText: String {
        guard let range else { return node.expectedText }
        let (wrapped, isOptional) = node.unwrapped
        return "\(wrapped.rangedKindText) in \(range.text)" + (isOptional ? " or null" : "")
    }
}

extension StoredValue {
    /// The form a stored value's kind tells, all the tool knows of a set stored without a schema:
    /// a `Bool`, a date, a URL...; an integer on its side of `Int64.max` when `strict` (`set`), of
    /// either side otherwise (`import`); a collection of what its first element that is not nil is.
    func impliedSchemaNode(strict: Bool) -> SchemaNode {
        func element(of values: some Collection<StoredValue>) -> SchemaNode {
            values.first { $0 != .null }?.impliedSchemaNode(strict: strict) ?? .any
        }
        switch self {
        case .null, .numberText: return .any
        case .bool: return .boolean
        case .integer: return strict ? .integer(Int64.self) : .integer(minimum: Int64.min, maximum: UInt64.max)
        case .unsignedInteger:
            return strict
                ? .integer(minimum: 0, maximum: UInt64.max) : .integer(minimum: Int64.min, maximum: UInt64.max)
        case .float: return .real(isFloat: true)
        case .double: return .real(isFloat: false)
        case .string: return .string
        case .data: return .data
        case .date: return .date
        case .url: return .url
        case .uuid: return .uuid
        case .array(let values), .set(let values): return .array(element(of: values))
        case .dictionary(let entries): return .dictionary(element(of: entries.sorted { $0.key < $1.key }.map(\.value)))
        }
    }

    /// Equal as JSON values: numbers by value (`1` and `1.0`; an integer is no other number), the
    /// rest by kind and value.
    func isSameJSONValue(as other: StoredValue) -> Bool {
        let (leftInteger, rightInteger) = (exactInteger, other.exactInteger)
        if leftInteger != nil || rightInteger != nil { return leftInteger == rightInteger }
        if let left = jsonNumber, let right = other.jsonNumber { return left == right }
        return self == other
    }
}
