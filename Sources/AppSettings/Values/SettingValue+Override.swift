import Foundation

// How an override's value becomes a value of the setting's declared type. Launch arguments and
// environment variables are text; managed configuration is property-list values (Apple) or JSON
// (Linux) whose strings may be text forms too (a date as ISO 8601, data as base64, as the
// inspector prints them). So a string is read by the declared type: Bool from YES/NO/true/false/1/0,
// numbers that must fit, dates as ISO 8601, collections and `Codable` values from property-list
// text as the argument domain reads it (`(a, b)`, `{key = value;}`) or from JSON.

extension SettingValue {
    /// Any other type (an `NSSecureCoding` class, a settings object in a collection): the stored
    /// form itself, or a string holding it as property-list text, JSON or base64 data.
    public static func _overrideValue(from stored: _StoredValue) throws -> Self {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        if let value = try? _value(from: stored) { return value }
        if let tree = OverrideText.tree(text), let value = try? _value(from: tree) { return value }
        if let data = Data(base64Encoded: text) { return try _value(from: .data(data)) }
        throw OverrideText.mismatch(Self.self, text)
    }
}

extension Bool {
    /// `YES`, `true`, `1` and `NO`, `false`, `0`, in any case.
    public static func _overrideValue(from stored: _StoredValue) throws -> Bool {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        switch OverrideText.trimmed(text).lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw OverrideText.mismatch(Bool.self, text, "expected YES, NO, true, false, 1 or 0")
        }
    }
}

extension _StoredInteger {
    /// A decimal integer that fits the type (`999` does not fit an `Int8`).
    public static func _overrideValue(from stored: _StoredValue) throws -> Self {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        let digits = OverrideText.trimmed(text)
        if let value = Self(digits) { return value }
        if Int64(digits) != nil || UInt64(digits) != nil {
            throw OverrideText.mismatch(Self.self, text, "out of the range of \(Self.self)")
        }
        throw OverrideText.mismatch(Self.self, text)
    }
}

extension Double {
    /// A decimal number.
    public static func _overrideValue(from stored: _StoredValue) throws -> Double {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        guard let value = Double(OverrideText.trimmed(text)) else { throw OverrideText.mismatch(Double.self, text) }
        return value
    }
}

extension Float {
    /// A decimal number within `Float`'s range.
    public static func _overrideValue(from stored: _StoredValue) throws -> Float {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        guard let value = Double(OverrideText.trimmed(text)) else { throw OverrideText.mismatch(Float.self, text) }
        let single = Float(value)
        if value.isFinite, !single.isFinite {
            throw OverrideText.mismatch(Float.self, text, "out of the range of Float")
        }
        return single
    }
}

extension String {
    /// The text as given.
    public static func _overrideValue(from stored: _StoredValue) throws -> String {
        try _value(from: stored)
    }
}

extension Data {
    /// Base64 (the inspector's form), or property-list data text (`<0fbd77>`).
    public static func _overrideValue(from stored: _StoredValue) throws -> Data {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        if let data = Data(base64Encoded: OverrideText.trimmed(text)) { return data }
        if case .data(let data)? = OverrideText.tree(text) { return data }
        throw OverrideText.mismatch(Data.self, text, "expected base64 or <hexadecimal bytes>")
    }
}

extension Date {
    /// ISO 8601: `2026-11-30T10:00:00Z`, with fractional seconds or a time zone offset, or a date
    /// alone (`2026-11-30`, midnight UTC): read as ``AppSettingsObject/update(fromJSON:replacingAll:)``
    /// reads a date, by the same function.
    public static func _overrideValue(from stored: _StoredValue) throws -> Date {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        guard let date = JSONForm.date(fromText: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(Date.self, text, "expected an ISO 8601 date")
        }
        return date
    }
}

extension URL {
    /// The text as a URL, whatever its scheme.
    public static func _overrideValue(from stored: _StoredValue) throws -> URL {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        let trimmed = OverrideText.trimmed(text)
        guard !trimmed.isEmpty, let url = URL(string: trimmed) else { throw OverrideText.mismatch(URL.self, text) }
        return url
    }
}

extension UUID {
    /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    public static func _overrideValue(from stored: _StoredValue) throws -> UUID {
        guard case .string(let text) = stored else { return try _value(from: stored) }
        guard let uuid = UUID(uuidString: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(UUID.self, text)
        }
        return uuid
    }
}

extension Optional where Wrapped: SettingValue {
    /// The wrapped type's text form; `nil` only from a managed `null`.
    public static func _overrideValue(from stored: _StoredValue) throws -> Wrapped? {
        if case .null = stored { return nil }
        return try Wrapped._overrideValue(from: stored)
    }
}

extension Array where Element: SettingValue {
    /// Property-list text (`(a, b)`) or JSON (`["a", "b"]`); each element read by its type.
    public static func _overrideValue(from stored: _StoredValue) throws -> [Element] {
        switch try OverrideText.collection(stored, of: [Element].self) {
        case .array(let elements), .set(let elements): return try elements.map(Element._overrideValue(from:))
        case let other: throw _StoredValueMismatch(expected: [Element].self, found: other)
        }
    }
}

extension Set where Element: SettingValue {
    /// Property-list text (`(a, b)`) or JSON (`["a", "b"]`); each element read by its type.
    public static func _overrideValue(from stored: _StoredValue) throws -> Set<Element> {
        switch try OverrideText.collection(stored, of: Set<Element>.self) {
        case .array(let elements), .set(let elements): return Set(try elements.map(Element._overrideValue(from:)))
        case let other: throw _StoredValueMismatch(expected: Set<Element>.self, found: other)
        }
    }
}

extension Dictionary where Key == String, Value: SettingValue {
    /// Property-list text (`{key = value;}`) or JSON (`{"key": "value"}`); each value read by
    /// its type.
    public static func _overrideValue(from stored: _StoredValue) throws -> [String: Value] {
        guard case .dictionary(let entries) = try OverrideText.collection(stored, of: [String: Value].self) else {
            throw _StoredValueMismatch(expected: [String: Value].self, found: stored)
        }
        return try entries.mapValues(Value._overrideValue(from:))
    }
}

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
    /// The raw value's text form (`dark` for `Theme.dark`).
    public static func _overrideValue(from stored: _StoredValue) throws -> Self {
        try value(fromRawOverride: stored)
    }

    static func value(fromRawOverride stored: _StoredValue) throws -> Self {
        try value(ofRawValue: RawValue._overrideValue(from: stored))
    }
}

extension SettingValue where Self: Codable {
    /// The property-list form, or JSON, or property-list text (`{width = 300; height = 200;}`,
    /// whose numbers arrive as text and are read as numbers when the type needs them).
    public static func _overrideValue(from stored: _StoredValue) throws -> Self {
        guard case .string(let text) = stored else { return try decodedOverride(stored) }
        if let value = try? _value(from: stored) { return value }
        guard let tree = OverrideText.tree(text) else { throw OverrideText.mismatch(Self.self, text) }
        return try decodedOverride(tree)
    }

    /// Decodes `tree`, and when that fails, the same tree with its strings that read as numbers
    /// or Booleans taken as such.
    private static func decodedOverride(_ tree: _StoredValue) throws -> Self {
        do {
            return try _value(from: tree)
        } catch {
            let scalars = OverrideText.scalars(in: tree)
            guard scalars != tree, let value = try? _value(from: scalars) else { throw error }
            return value
        }
    }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
    /// The raw value's text form, as for a raw-value type that is not `Codable`.
    public static func _overrideValue(from stored: _StoredValue) throws -> Self {
        try value(fromRawOverride: stored)
    }
}

/// Reading the text of an override.
enum OverrideText {
    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A mismatch that quotes the text.
    static func mismatch(_ type: Any.Type, _ text: String, _ detail: String? = nil) -> _StoredValueMismatch {
        let quoted = "'\(text)'"
        return _StoredValueMismatch(expected: type, foundDescription: detail.map { "\(quoted) (\($0))" } ?? quoted)
    }

    /// The structure `text` holds as a property list (XML, or the old-style text the argument
    /// domain reads: `(a, b)`, `{key = value;}`, `<0fbd77>`) or as JSON; `nil` when it holds none
    /// (plain text is not a structure).
    static func tree(_ text: String) -> _StoredValue? {
        let data = Data(text.utf8)
        if let propertyList = try? PropertyListSerialization.propertyList(from: data, format: nil),
            !(propertyList is String), let tree = storedValue(ofParsed: propertyList)
        {
            return tree
        }
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            !(json is String), let tree = storedValue(ofParsed: json)
        {
            return tree
        }
        return nil
    }

    /// A parsed property list or JSON value as a stored value; old-style dictionaries come with
    /// `AnyHashable` keys, which must all be strings.
    static func storedValue(ofParsed value: Any) -> _StoredValue? {
        if let dictionary = value as? [AnyHashable: Any], !(value is [String: Any]) {
            var entries: [String: _StoredValue] = [:]
            for (key, element) in dictionary {
                guard let key = key.base as? String, let stored = storedValue(ofParsed: element) else { return nil }
                entries[key] = stored
            }
            return .dictionary(entries)
        }
        if let array = value as? [Any] {
            var elements: [_StoredValue] = []
            for element in array {
                guard let stored = storedValue(ofParsed: element) else { return nil }
                elements.append(stored)
            }
            return .array(elements)
        }
        if let dictionary = value as? [String: Any] {
            var entries: [String: _StoredValue] = [:]
            for (key, element) in dictionary {
                guard let stored = storedValue(ofParsed: element) else { return nil }
                entries[key] = stored
            }
            return .dictionary(entries)
        }
        return _StoredValue(propertyListValue: value)
    }

    /// A collection's stored form: itself, or the structure its text holds.
    static func collection(_ stored: _StoredValue, of type: Any.Type) throws -> _StoredValue {
        guard case .string(let text) = stored else { return stored }
        guard let tree = tree(text) else {
            throw mismatch(type, text, "expected property-list text such as (a, b) or {key = value;}, or JSON")
        }
        return tree
    }

    /// `tree` with each string that reads as a number or a Boolean replaced by it.
    static func scalars(in tree: _StoredValue) -> _StoredValue {
        switch tree {
        case .string(let text):
            let trimmed = trimmed(text)
            if let integer = Int64(trimmed) { return .integer(integer) }
            if let real = Double(trimmed) { return .double(real) }
            switch trimmed.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: return tree
            }
        case .array(let elements): return .array(elements.map(scalars(in:)))
        case .set(let elements): return .set(elements.map(scalars(in:)))
        case .dictionary(let entries): return .dictionary(entries.mapValues(scalars(in:)))
        default: return tree
        }
    }

}
