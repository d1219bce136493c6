import Foundation

// The witnesses of the built-in scalar types: how each is stored and read back, read from its
// JSON form and from an override's text, and described in a JSON Schema. Each is made once
// (`static let settingRepresentation` in `SettingValue.swift`).

// MARK: - Bool

final class BoolWitness: SettingWitness<Bool>, @unchecked Sendable {
    override func storedValue(of value: Bool) -> StoredValue { .bool(value) }

    /// A Boolean, or the integers 0 and 1.
    override func value(from stored: StoredValue) throws -> Bool {
        switch stored {
        case .bool(let value): return value
        case .integer(0): return false
        case .integer(1): return true
        default: throw StoredValueMismatch(expected: Bool.self, found: stored)
        }
    }

    override func isSame(_ lhs: Bool, _ rhs: Bool) -> Bool { lhs == rhs }

    /// `true` or `false` (JSON tells them from numbers).
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        switch value {
        case .integer, .unsignedInteger, .float, .double, .numberText:
            throw StoredValueMismatch(expected: Bool.self, found: value)
        default: return value
        }
    }

    /// `YES`, `true`, `1` and `NO`, `false`, `0`, in any case.
    override func overrideValue(from stored: StoredValue) throws -> Bool {
        guard case .string(let text) = stored else { return try value(from: stored) }
        switch OverrideText.trimmed(text).lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw OverrideText.mismatch(Bool.self, text, "expected YES, NO, true, false, 1 or 0")
        }
    }

    override var schemaNode: SchemaNode { .boolean }
}

// MARK: - Integers

/// The witness of every integer type: a stored integer that does not fit the declared type is a
/// mismatch, never a truncation.
final class IntegerWitness<Integer: FixedWidthInteger>: SettingWitness<Integer>, @unchecked Sendable {
    override func storedValue(of value: Integer) -> StoredValue {
        if let signed = Int64(exactly: value) { return .integer(signed) }
        return .unsignedInteger(UInt64(value))
    }

    /// Any stored integer that fits, and a real number with an integral value that fits (a number
    /// read from text by its digits: `5.0`, `5e0`).
    ///
    /// A Boolean counts as 0 or 1: swift-corelibs-foundation's `NSKeyedArchiver` stores
    /// `NSNumber(value: 1)` as `true` when the same archive holds a `true` (it treats equal
    /// numbers as one object), so archives written by Foundation contain such values.
    override func value(from stored: StoredValue) throws -> Integer {
        let converted: Integer? =
            switch stored {
            case .bool(let value): value ? 1 : 0
            case .integer(let value): Integer(exactly: value)
            case .unsignedInteger(let value): Integer(exactly: value)
            case .double(let value): Integer(exactly: value)
            case .float(let value): Integer(exactly: value)
            case .numberText: stored.exactInteger.flatMap { try? value(from: $0) }
            default: nil
            }
        guard let converted else { throw StoredValueMismatch(expected: Integer.self, found: stored) }
        return converted
    }

    override func isSame(_ lhs: Integer, _ rhs: Integer) -> Bool { lhs == rhs }

    /// A number whose value is an integer, read from its digits (`5`, `5.0`, `5e0`); one out of
    /// the type's range is refused by `value(from:)`, a Boolean or a fraction here.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        switch value {
        case .bool: throw StoredValueMismatch(expected: Integer.self, found: value)
        case .numberText, .double, .float:
            guard let integer = value.exactInteger else {
                throw StoredValueMismatch(expected: Integer.self, found: value)
            }
            return integer
        default: return value
        }
    }

    /// A number whose value is an integer that fits the type, read as a document's number is
    /// (`5`, `5.0`, `5e0`; `999` does not fit an `Int8`).
    override func overrideValue(from stored: StoredValue) throws -> Integer {
        guard case .string(let text) = stored else { return try value(from: stored) }
        guard let integer = TextForms.integer(fromNumberText: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(Integer.self, text)
        }
        guard let value = try? value(from: integer) else {
            throw OverrideText.mismatch(Integer.self, text, "out of the range of \(Integer.self)")
        }
        return value
    }

    /// An integer within the type's bounds.
    override var schemaNode: SchemaNode { .integer(Integer.self) }
}

// MARK: - Real numbers

/// The witness of `Double` and `Float` (`isFloat`).
final class RealWitness<Real: BinaryFloatingPoint & LosslessStringConvertible>: SettingWitness<Real>,
    @unchecked Sendable
{
    private var isFloat: Bool { Real.self == Float.self }

    override func storedValue(of value: Real) -> StoredValue { isFloat ? .float(Float(value)) : .double(Double(value)) }

    /// Any stored number (a double is rounded to the nearest `Float`, a Boolean is 0 or 1, see
    /// `IntegerWitness`).
    override func value(from stored: StoredValue) throws -> Real {
        switch stored {
        case .bool(let value): return value ? 1 : 0
        case .float(let value): return Real(value)
        case .double(let value): return Real(value)
        case .integer(let value): return Real(value)
        case .unsignedInteger(let value): return Real(value)
        case .numberText(let text):
            guard let number = Real(text) else { throw StoredValueMismatch(expected: Real.self, found: stored) }
            return number
        default: throw StoredValueMismatch(expected: Real.self, found: stored)
        }
    }

    /// `==`, except that NaN is the same as NaN: assigning it again changes nothing.
    override func isSame(_ lhs: Real, _ rhs: Real) -> Bool {
        lhs == rhs || (lhs.isNaN && rhs.isNaN)
    }

    /// A number (for a `Float`, within its range; one read from text rounded once, to the `Float`
    /// nearest it), or `"nan"`, `"inf"` or `"-inf"`.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        guard isFloat else { return try JSONForm.realNumber(value, for: Double.self) }
        if case .numberText(let text) = value, TextForms.isInRange(numberText: value, isFloat: true),
            let single = Float(text)
        {
            return .float(single)
        }
        let number = try JSONForm.realNumber(value, for: Float.self)
        if case .double(let double) = number, double.isFinite, !TextForms.isInRange(double, isFloat: true) {
            throw StoredValueMismatch(expected: Float.self, foundDescription: "\(double), out of Float's range")
        }
        return number
    }

    /// A decimal number (for a `Float`, within its range), or `nan`, `inf`, `-inf`
    /// (`TextForms.realNumber(fromText:)`).
    override func overrideValue(from stored: StoredValue) throws -> Real {
        guard case .string(let text) = stored else { return try value(from: stored) }
        guard let value = TextForms.realNumber(fromText: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(Real.self, text)
        }
        if isFloat, value.isFinite, !TextForms.isInRange(value, isFloat: true) {
            throw OverrideText.mismatch(Float.self, text, "out of the range of Float")
        }
        return Real(value)
    }

    /// A number within the type's range, or `"nan"`, `"inf"`, `"-inf"`.
    override var schemaNode: SchemaNode { .real(isFloat: isFloat) }
}

// MARK: - Foundation values

final class StringWitness: SettingWitness<String>, @unchecked Sendable {
    override func storedValue(of value: String) -> StoredValue { .string(value) }

    /// A stored string.
    override func value(from stored: StoredValue) throws -> String {
        guard case .string(let value) = stored else { throw StoredValueMismatch(expected: String.self, found: stored) }
        return value
    }

    override func isSame(_ lhs: String, _ rhs: String) -> Bool { lhs == rhs }

    /// The text as given.
    override func overrideValue(from stored: StoredValue) throws -> String {
        try value(from: stored)
    }

    override var schemaNode: SchemaNode { .string }
}

final class DataWitness: SettingWitness<Data>, @unchecked Sendable {
    override func storedValue(of value: Data) -> StoredValue { .data(value) }

    /// Stored data, or base64 text (its JSON form, as the `appsettings` tool may store it).
    override func value(from stored: StoredValue) throws -> Data {
        guard case .data(let value) = try JSONForm.data(stored, for: Data.self) else {
            throw StoredValueMismatch(expected: Data.self, found: stored)
        }
        return value
    }

    override func isSame(_ lhs: Data, _ rhs: Data) -> Bool { lhs == rhs }

    /// Base64 text.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try JSONForm.data(value, for: Data.self)
    }

    /// Base64 (the inspector's form), or property-list data text (`<0fbd77>`).
    override func overrideValue(from stored: StoredValue) throws -> Data {
        guard case .string(let text) = stored else { return try value(from: stored) }
        if let data = TextForms.data(fromBase64: OverrideText.trimmed(text)) { return data }
        if case .data(let data)? = OverrideText.tree(text) { return data }
        throw OverrideText.mismatch(Data.self, text, "expected canonical base64 or <hexadecimal bytes>")
    }

    override var schemaNode: SchemaNode { .data }
}

final class DateWitness: SettingWitness<Date>, @unchecked Sendable {
    override func storedValue(of value: Date) -> StoredValue { .date(value) }

    /// A stored date, or ISO 8601 text (its JSON form, as the `appsettings` tool may store it).
    override func value(from stored: StoredValue) throws -> Date {
        guard case .date(let value) = try JSONForm.date(stored, for: Date.self) else {
            throw StoredValueMismatch(expected: Date.self, found: stored)
        }
        return value
    }

    override func isSame(_ lhs: Date, _ rhs: Date) -> Bool { lhs == rhs }

    /// ISO 8601 text with a time zone, with any number of digits of fractional seconds.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try JSONForm.date(value, for: Date.self)
    }

    /// ISO 8601 with a time zone: `2026-11-30T10:00:00Z`, with fractional seconds or an offset:
    /// read as ``AppSettingsObject/update(fromJSON:replacingAll:)`` reads a date, by the same
    /// function (`TextForms.date(fromText:)`).
    override func overrideValue(from stored: StoredValue) throws -> Date {
        guard case .string(let text) = stored else { return try value(from: stored) }
        guard let date = TextForms.date(fromText: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(Date.self, text, "expected \(SchemaNode.date.expectedText)")
        }
        return date
    }

    /// ISO 8601 text.
    override var schemaNode: SchemaNode { .date }
}

final class URLWitness: SettingWitness<URL>, @unchecked Sendable {
    /// An `NSURL` holding the absolute string, whatever the scheme.
    override func storedValue(of value: URL) -> StoredValue { .url(value.absoluteURL) }

    /// A stored URL, or a string that is a valid URL (the dictionary form).
    override func value(from stored: StoredValue) throws -> URL {
        switch stored {
        case .url(let value): return value
        case .string(let string):
            guard let url = URL(string: string) else { throw StoredValueMismatch(expected: URL.self, found: stored) }
            return url
        default: throw StoredValueMismatch(expected: URL.self, found: stored)
        }
    }

    override func isSame(_ lhs: URL, _ rhs: URL) -> Bool { lhs == rhs }

    /// The text as a URL, whatever its scheme.
    override func overrideValue(from stored: StoredValue) throws -> URL {
        guard case .string(let text) = stored else { return try value(from: stored) }
        let trimmed = OverrideText.trimmed(text)
        guard let url = TextForms.url(fromText: trimmed) else {
            throw OverrideText.mismatch(URL.self, text, "expected \(SchemaNode.url.expectedText)")
        }
        return url
    }

    /// A string.
    override var schemaNode: SchemaNode { .url }
}

final class UUIDWitness: SettingWitness<UUID>, @unchecked Sendable {
    override func storedValue(of value: UUID) -> StoredValue { .uuid(value) }

    /// A stored UUID, or its string form (the dictionary form).
    override func value(from stored: StoredValue) throws -> UUID {
        switch stored {
        case .uuid(let value): return value
        case .string(let string):
            guard let uuid = UUID(uuidString: string) else {
                throw StoredValueMismatch(expected: UUID.self, found: stored)
            }
            return uuid
        default: throw StoredValueMismatch(expected: UUID.self, found: stored)
        }
    }

    override func isSame(_ lhs: UUID, _ rhs: UUID) -> Bool { lhs == rhs }

    /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    override func overrideValue(from stored: StoredValue) throws -> UUID {
        guard case .string(let text) = stored else { return try value(from: stored) }
        guard let uuid = UUID(uuidString: OverrideText.trimmed(text)) else {
            throw OverrideText.mismatch(UUID.self, text)
        }
        return uuid
    }

    /// A UUID string.
    override var schemaNode: SchemaNode { .uuid }
}
