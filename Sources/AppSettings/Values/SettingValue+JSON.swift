import Foundation

// How each kind of setting reads its JSON form (`update(fromJSON:)`): the value as JSON gives it
// (numbers, strings, Booleans, null, arrays, dictionaries) becomes the stored form the type's
// `_value(from:)` reads. Only what JSON writes differently needs a reading here; the type's own
// `_value(from:)` then checks the rest (an integer out of range, a raw value with no case).

extension SettingValue {
    /// Takes the value as JSON gives it: numbers, strings, Booleans, arrays and dictionaries
    /// are stored as they are (a URL and a UUID are read from their strings).
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue { value }
}

// Every Codable type would otherwise read its JSON form with `JSONDecoder` (the `Codable`
// default below): the built-in types say that they take JSON's values as they are.

extension Bool {
    /// `true` or `false` (JSON tells them from numbers).
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        switch value {
        case .integer, .unsignedInteger, .float, .double: throw _StoredValueMismatch(expected: Bool.self, found: value)
        default: return value
        }
    }
}

extension _StoredInteger where Self: Codable {
    /// An integer (or a real number with an integral value); one out of the type's range is
    /// refused by ``_value(from:)``, a Boolean here.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        guard case .bool = value else { return value }
        throw _StoredValueMismatch(expected: Self.self, found: value)
    }
}

extension String {
    /// A string.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue { value }
}

extension URL {
    /// A string.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue { value }
}

extension UUID {
    /// A string.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue { value }
}

extension Double {
    /// A number, or `"nan"`, `"inf"` or `"-inf"`.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try JSONForm.realNumber(value, for: Double.self)
    }
}

extension Float {
    /// A number within `Float`'s range, or `"nan"`, `"inf"` or `"-inf"`.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        let number = try JSONForm.realNumber(value, for: Float.self)
        if case .double(let double) = number, double.isFinite, !Float(double).isFinite {
            throw _StoredValueMismatch(expected: Float.self, foundDescription: "\(double), out of Float's range")
        }
        return number
    }
}

extension Date {
    /// ISO 8601 text with a time zone, with any number of digits of fractional seconds.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try JSONForm.date(value, for: Date.self)
    }
}

extension Data {
    /// Base64 text.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try JSONForm.data(value, for: Data.self)
    }
}

extension Optional where Wrapped: SettingValue {
    /// `null` for `nil`, the wrapped type's form otherwise.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        value == .null ? .null : try Wrapped._storedValue(fromJSONForm: value)
    }
}

extension Array where Element: SettingValue {
    /// An array of the element type's forms.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        guard case .array(let elements) = value else { return value }
        return .array(try elements.map(Element._storedValue(fromJSONForm:)))
    }
}

extension Set where Element: SettingValue {
    /// An array of the element type's forms.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        guard case .array(let elements) = value else { return value }
        return .set(try elements.map(Element._storedValue(fromJSONForm:)))
    }
}

extension Dictionary where Key == String, Value: SettingValue {
    /// An object of the value type's forms.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        guard case .dictionary(let entries) = value else { return value }
        return .dictionary(try entries.mapValues(Value._storedValue(fromJSONForm:)))
    }
}

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
    /// The raw value's form.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try RawValue._storedValue(fromJSONForm: value)
    }
}

extension SettingValue where Self: Codable {
    /// The value as `JSONEncoder` would write it, with dates as ISO 8601 text, `Data` as base64
    /// and non-finite numbers as `"nan"`, `"inf"` and `"-inf"` (the JSON form of its stored form).
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try _storedValue(of: JSONForm.decoded(Self.self, from: value))
    }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
    /// The raw value's form (a raw-value enum that is also `Codable` is stored by its raw value).
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try RawValue._storedValue(fromJSONForm: value)
    }
}

extension SettingValue where Self: NSObject & NSSecureCoding {
    /// Base64 text of the object's archive, as it is stored.
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try JSONForm.data(value, for: Self.self)
    }
}

extension AppSettingsObject {
    /// An object of the settings' forms, by stored name (in an array or a dictionary of settings
    /// objects; a nested `@Setting` is read in place by ``update(fromJSON:replacingAll:)``).
    public static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        guard case .dictionary(let entries) = value else { return value }
        let object = Self(userDefaults: ScratchCopyDefaults.describingClass)
        do {
            return .dictionary(try object.storedEntries(fromJSONForm: entries, key: object.userDefaultsKey))
        } catch {
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "\(error)")
        }
    }
}
