import Foundation

// What a setting's JSON form may be: one description of each type, from which the JSON Schema
// (`jsonSchema()`), the compact form the archive carries for the tool (`StoredSchema`), the
// managed-configuration spec (`AppConfigSpecification`) and the tool's checks (`problem(with:)`)
// are all made.

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
    /// A value the library does not describe (a `Codable` value): any JSON value.
    case any
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
}

/// The closed range of `@Setting(in:)`, both bounds in their JSON form.
struct SchemaRange: Sendable, Hashable {
    var lowerBound: StoredValue
    var upperBound: StoredValue

    /// `0.0...1.0`, `1...10`: the range as messages name it.
    var text: String { "\(JSONForm.description(of: lowerBound))...\(JSONForm.description(of: upperBound))" }

    /// Whether a JSON-form value lies in the range; `nil` when it is not of the range's kind.
    func contains(_ value: StoredValue) -> Bool? {
        switch (lowerBound, value) {
        case (.string(let lower), .string(let text)):
            guard case .string(let upper) = upperBound, let date = JSONForm.date(fromText: text),
                let low = JSONForm.date(fromText: lower), let high = JSONForm.date(fromText: upper)
            else { return nil }
            return low <= date && date <= high
        default:
            guard let number = value.jsonNumber, let low = lowerBound.jsonNumber, let high = upperBound.jsonNumber
            else { return nil }
            return low <= number && number <= high
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
        case .integerText(let text): Double(text)
        case .double(let value): value
        case .float(let value): Double(value)
        default: nil
        }
    }

    /// The value as a document holds it: the JSON form of a stored value, read back as JSON gives it.
    var jsonForm: StoredValue {
        if case .integerText = self { return self }
        return JSONForm.storedValue(fromJSON: JSONForm.jsonValue(self)) ?? self
    }

    /// The value with every integer beyond 64 bits as the `Double` nearest it: what
    /// `JSONSerialization` would have read.
    var withIntegerTextAsDouble: StoredValue {
        switch self {
        case .integerText(let text): Double(text).map { .double($0) } ?? self
        case .array(let values): .array(values.map(\.withIntegerTextAsDouble))
        case .set(let values): .set(values.map(\.withIntegerTextAsDouble))
        case .dictionary(let entries): .dictionary(entries.mapValues(\.withIntegerTextAsDouble))
        default: self
        }
    }
}

extension SchemaNode {
    /// The integer bounds of `T`.
    static func integer<T: FixedWidthInteger>(_ type: T.Type) -> SchemaNode {
        .integer(minimum: Int64(truncatingIfNeeded: T.min), maximum: UInt64(truncatingIfNeeded: T.max))
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
        case (.optional(let wrapped), _): return wrapped.problem(with: value, path: path)
        case (_, .null): return refused(expectedText + " (the setting is not optional)")
        case (.boolean, .bool): return nil
        case (.integer, .integer), (.integer, .unsignedInteger), (.integer, .double), (.integer, .integerText):
            return fitsInteger(value) ? nil : refused(expectedText)
        case (.real(let isFloat), .integer), (.real(let isFloat), .unsignedInteger), (.real(let isFloat), .double),
            (.real(let isFloat), .integerText):
            guard let number = value.jsonNumber, TextForms.isInRange(number, isFloat: isFloat) else {
                return refused(expectedText)
            }
            return nil
        case (.real, .string(let text)): return ["nan", "inf", "-inf"].contains(text) ? nil : refused(expectedText)
        case (.string, .string): return nil
        case (.url, .string(let text)): return TextForms.url(fromText: text) == nil ? refused(expectedText) : nil
        case (.date, .string(let text)): return TextForms.date(fromText: text) == nil ? refused(expectedText) : nil
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
        default:
            return refused(expectedText)
        }
    }

    /// Whether a JSON number is an integer within this integer form's bounds, compared exactly
    /// (`9223372036854775808.0` is not an `Int64`, though it rounds to `Int64.max` as a `Double`).
    private func fitsInteger(_ value: StoredValue) -> Bool {
        guard case .integer(let minimum, let maximum) = self else { return false }
        switch value {
        case .integer(let integer): return integer >= minimum && (integer < 0 || UInt64(integer) <= maximum)
        case .unsignedInteger(let integer): return integer <= maximum
        case .double(let real):
            if let integer = Int64(exactly: real) { return fitsInteger(.integer(integer)) }
            if let integer = UInt64(exactly: real) { return fitsInteger(.unsignedInteger(integer)) }
            return false
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
        }
    }
}

extension SchemaProperty {
    /// Why a value (as JSON gives it) does not fit this setting: its form, then its range.
    func problem(with value: StoredValue, path: String) -> SchemaProblem? {
        if let problem = node.problem(with: value, path: path) { return problem }
        guard let range, value != .null, range.contains(value) == false else { return nil }
        return SchemaProblem(
            path: path, expected: "\(node.unwrapped.node.rangedKindText) in \(range.text)",
            found: JSONForm.description(of: value))
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
        case .null: return .any
        case .bool: return .boolean
        case .integer: return strict ? .integer(Int64.self) : .integer(minimum: Int64.min, maximum: UInt64.max)
        case .unsignedInteger:
            return strict
                ? .integer(minimum: 0, maximum: UInt64.max) : .integer(minimum: Int64.min, maximum: UInt64.max)
        case .float: return .real(isFloat: true)
        case .double, .integerText: return .real(isFloat: false)
        case .string: return .string
        case .data: return .data
        case .date: return .date
        case .url: return .url
        case .uuid: return .uuid
        case .array(let values), .set(let values): return .array(element(of: values))
        case .dictionary(let entries): return .dictionary(element(of: entries.sorted { $0.key < $1.key }.map(\.value)))
        }
    }

    /// Equal as JSON values: numbers by value (`1` and `1.0`), the rest by kind and value.
    func isSameJSONValue(as other: StoredValue) -> Bool {
        if let left = jsonNumber, let right = other.jsonNumber { return left == right }
        return self == other
    }
}
