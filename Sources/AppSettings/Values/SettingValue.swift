import Foundation

/// A type that a ``Setting`` can hold and store.
///
/// Built in: `Bool`; `Int`, `Int8` to `Int64`, `UInt`, `UInt8` to `UInt64`; `Float`, `Double`;
/// `String`, `Date`, `Data`, `URL` (any scheme, kept whole), `UUID`; `Optional`s of these (a stored
/// `nil` comes back as `nil`); `Array`s, `Set`s and `String`-keyed `Dictionary`s of these; and
/// nested ``AppSettingsObject`` subclasses.
///
/// One line makes your own type storable, when it is one of these:
///
/// ```swift
/// enum Theme: String { case light, dark }
/// extension Theme: SettingValue {}            // RawRepresentable with a storable raw value
///
/// struct WindowFrame: Codable, Equatable { var x, y, width, height: Double }
/// extension WindowFrame: SettingValue {}      // Codable: stored as its property-list form
///
/// extension MyColor: SettingValue {}          // an NSObject subclass that adopts NSSecureCoding
/// ```
///
/// A type that is none of these does not compile as a setting; it never fails at run time.
///
/// An `NSSecureCoding` class of Apple's frameworks (`NSColor`, `UIColor`, `NSAttributedString`, …)
/// compiles but cannot be stored: only `NSKeyedUnarchiver` can decode it, and the library never runs
/// that on stored bytes. Saving a set that holds one throws
/// ``AppSettingsError/encodingFailed(key:setting:reason:)`` naming the setting, so nothing is saved that
/// could never load. Store its parts instead (for a color, a `Codable` struct of its components).
/// Foundation's value classes (`NSString`, `NSNumber`, `NSData`, `NSDate`, `NSURL`, `NSUUID`, the
/// collections, `NSNull`) are read by the library itself and work.
///
/// The requirements are implementation details with default implementations; do not implement
/// them yourself.
public protocol SettingValue {
    /// Converts a value to its stored form.
    static func _storedValue(of value: Self) throws -> _StoredValue
    /// Reads a value back from its stored form; throws ``_StoredValueMismatch`` if it does not fit.
    static func _value(from stored: _StoredValue) throws -> Self
    /// Whether two values are the same setting value (used to skip changes that change nothing).
    static func _isSameSettingValue(_ lhs: Self, _ rhs: Self) -> Bool
    /// Reads a value of this type's JSON form (as JSON gives it: a date is a string) into the
    /// stored form ``_value(from:)`` reads; throws ``_StoredValueMismatch`` if it does not fit.
    static func _storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue
    /// Reads the value of an override (a launch argument, an environment variable, managed
    /// configuration): as ``_value(from:)``, but a string may also be the value's text form
    /// (`YES`, `0.3`, `(a, b)`, JSON); throws ``_StoredValueMismatch`` if it does not fit.
    static func _overrideValue(from stored: _StoredValue) throws -> Self
}

extension SettingValue {
    /// Compares the stored forms: correct for every storable type, used when it is not `Equatable`.
    public static func _isSameSettingValue(_ lhs: Self, _ rhs: Self) -> Bool {
        // A value that cannot be encoded counts as changed: a change is never missed.
        guard let left = try? _storedValue(of: lhs), let right = try? _storedValue(of: rhs) else { return false }
        return left == right
    }
}

extension SettingValue where Self: Equatable {
    /// Uses `==`.
    public static func _isSameSettingValue(_ lhs: Self, _ rhs: Self) -> Bool { lhs == rhs }
}

// MARK: - Numbers and Bool

extension Bool: SettingValue {
    /// Stores a Boolean `NSNumber`.
    public static func _storedValue(of value: Bool) -> _StoredValue { .bool(value) }
    /// Accepts a Boolean, or the integers 0 and 1.
    public static func _value(from stored: _StoredValue) throws -> Bool {
        switch stored {
        case .bool(let value): return value
        case .integer(0): return false
        case .integer(1): return true
        default: throw _StoredValueMismatch(expected: Bool.self, found: stored)
        }
    }
}

/// The shared implementation of the integer conformances: a stored integer that does not fit
/// the declared type is a mismatch, never a truncation.
public protocol _StoredInteger: FixedWidthInteger, SettingValue {}

extension _StoredInteger {
    /// Stores an integer `NSNumber`.
    public static func _storedValue(of value: Self) -> _StoredValue {
        if let signed = Int64(exactly: value) { return .integer(signed) }
        return .unsignedInteger(UInt64(value))
    }

    /// Accepts any stored integer that fits, and a real number with an integral value that fits.
    ///
    /// A Boolean counts as 0 or 1: swift-corelibs-foundation's `NSKeyedArchiver` stores
    /// `NSNumber(value: 1)` as `true` when the same archive holds a `true` (it treats equal
    /// numbers as one object), so archives written by Foundation contain such values.
    public static func _value(from stored: _StoredValue) throws -> Self {
        let converted: Self? =
            switch stored {
            case .bool(let value): value ? 1 : 0
            case .integer(let value): Self(exactly: value)
            case .unsignedInteger(let value): Self(exactly: value)
            case .double(let value): Self(exactly: value)
            case .float(let value): Self(exactly: value)
            default: nil
            }
        guard let converted else { throw _StoredValueMismatch(expected: Self.self, found: stored) }
        return converted
    }
}

extension Int: _StoredInteger {}
extension Int8: _StoredInteger {}
extension Int16: _StoredInteger {}
extension Int32: _StoredInteger {}
extension Int64: _StoredInteger {}
extension UInt: _StoredInteger {}
extension UInt8: _StoredInteger {}
extension UInt16: _StoredInteger {}
extension UInt32: _StoredInteger {}
extension UInt64: _StoredInteger {}

extension Double: SettingValue {
    /// Stores a double-precision `NSNumber`.
    public static func _storedValue(of value: Double) -> _StoredValue { .double(value) }
    /// `==`, except that NaN is the same as NaN: assigning it again changes nothing (issue 28).
    public static func _isSameSettingValue(_ lhs: Double, _ rhs: Double) -> Bool {
        lhs == rhs || (lhs.isNaN && rhs.isNaN)
    }
    /// Accepts any stored number (a Boolean as 0 or 1, see ``_StoredInteger``).
    public static func _value(from stored: _StoredValue) throws -> Double {
        switch stored {
        case .bool(let value): return value ? 1 : 0
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .integer(let value): return Double(value)
        case .unsignedInteger(let value): return Double(value)
        default: throw _StoredValueMismatch(expected: Double.self, found: stored)
        }
    }
}

extension Float: SettingValue {
    /// Stores a single-precision `NSNumber`.
    public static func _storedValue(of value: Float) -> _StoredValue { .float(value) }
    /// `==`, except that NaN is the same as NaN: assigning it again changes nothing (issue 28).
    public static func _isSameSettingValue(_ lhs: Float, _ rhs: Float) -> Bool {
        lhs == rhs || (lhs.isNaN && rhs.isNaN)
    }
    /// Accepts any stored number (a double is rounded to the nearest `Float`, a Boolean is 0 or 1).
    public static func _value(from stored: _StoredValue) throws -> Float {
        switch stored {
        case .bool(let value): return value ? 1 : 0
        case .float(let value): return value
        case .double(let value): return Float(value)
        case .integer(let value): return Float(value)
        case .unsignedInteger(let value): return Float(value)
        default: throw _StoredValueMismatch(expected: Float.self, found: stored)
        }
    }
}

// MARK: - Foundation values

extension String: SettingValue {
    /// Stores an `NSString`.
    public static func _storedValue(of value: String) -> _StoredValue { .string(value) }
    /// Accepts a stored string.
    public static func _value(from stored: _StoredValue) throws -> String {
        guard case .string(let value) = stored else { throw _StoredValueMismatch(expected: String.self, found: stored) }
        return value
    }
}

extension Data: SettingValue {
    /// Stores an `NSData`.
    public static func _storedValue(of value: Data) -> _StoredValue { .data(value) }
    /// Accepts stored data, or base64 text (its JSON form, as the `appsettings` tool may store it).
    public static func _value(from stored: _StoredValue) throws -> Data {
        guard case .data(let value) = try JSONForm.data(stored, for: Data.self) else {
            throw _StoredValueMismatch(expected: Data.self, found: stored)
        }
        return value
    }
}

extension Date: SettingValue {
    /// Stores an `NSDate`.
    public static func _storedValue(of value: Date) -> _StoredValue { .date(value) }
    /// Accepts a stored date, or ISO 8601 text (its JSON form, as the `appsettings` tool may store it).
    public static func _value(from stored: _StoredValue) throws -> Date {
        guard case .date(let value) = try JSONForm.date(stored, for: Date.self) else {
            throw _StoredValueMismatch(expected: Date.self, found: stored)
        }
        return value
    }
}

extension URL: SettingValue {
    /// Stores an `NSURL` holding the absolute string, whatever the scheme.
    public static func _storedValue(of value: URL) -> _StoredValue { .url(value.absoluteURL) }
    /// Accepts a stored URL, or a string that is a valid URL (the dictionary form).
    public static func _value(from stored: _StoredValue) throws -> URL {
        switch stored {
        case .url(let value): return value
        case .string(let string):
            guard let url = URL(string: string) else { throw _StoredValueMismatch(expected: URL.self, found: stored) }
            return url
        default: throw _StoredValueMismatch(expected: URL.self, found: stored)
        }
    }
}

extension UUID: SettingValue {
    /// Stores an `NSUUID`.
    public static func _storedValue(of value: UUID) -> _StoredValue { .uuid(value) }
    /// Accepts a stored UUID, or its string form (the dictionary form).
    public static func _value(from stored: _StoredValue) throws -> UUID {
        switch stored {
        case .uuid(let value): return value
        case .string(let string):
            guard let uuid = UUID(uuidString: string) else {
                throw _StoredValueMismatch(expected: UUID.self, found: stored)
            }
            return uuid
        default: throw _StoredValueMismatch(expected: UUID.self, found: stored)
        }
    }
}

// MARK: - Optionals and collections

extension Optional: SettingValue where Wrapped: SettingValue {
    /// Stores `NSNull` for `nil`, the wrapped value's form otherwise.
    public static func _storedValue(of value: Wrapped?) throws -> _StoredValue {
        guard let value else { return .null }
        return try Wrapped._storedValue(of: value)
    }

    /// A stored `nil` comes back as `nil`.
    public static func _value(from stored: _StoredValue) throws -> Wrapped? {
        if case .null = stored { return nil }
        return try Wrapped._value(from: stored)
    }

    /// Equal when both are `nil` or both hold the same value.
    public static func _isSameSettingValue(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let left?, let right?): Wrapped._isSameSettingValue(left, right)
        default: false
        }
    }
}

extension Array: SettingValue where Element: SettingValue {
    /// Stores an `NSArray`.
    public static func _storedValue(of value: [Element]) throws -> _StoredValue {
        .array(try value.map(Element._storedValue(of:)))
    }

    /// Accepts a stored array (or set) whose every element fits.
    public static func _value(from stored: _StoredValue) throws -> [Element] {
        switch stored {
        case .array(let elements), .set(let elements): return try elements.map(Element._value(from:))
        default: throw _StoredValueMismatch(expected: [Element].self, found: stored)
        }
    }

    /// Element by element.
    public static func _isSameSettingValue(_ lhs: [Element], _ rhs: [Element]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.indices where !Element._isSameSettingValue(lhs[index], rhs[index]) { return false }
        return true
    }
}

extension Set: SettingValue where Element: SettingValue {
    /// Stores an `NSSet`.
    public static func _storedValue(of value: Set<Element>) throws -> _StoredValue {
        .set(try value.map(Element._storedValue(of:)))
    }

    /// Accepts a stored set (or array) whose every element fits.
    public static func _value(from stored: _StoredValue) throws -> Set<Element> {
        switch stored {
        case .array(let elements), .set(let elements): return Set(try elements.map(Element._value(from:)))
        default: throw _StoredValueMismatch(expected: Set<Element>.self, found: stored)
        }
    }

    /// Uses `==`.
    public static func _isSameSettingValue(_ lhs: Set<Element>, _ rhs: Set<Element>) -> Bool { lhs == rhs }
}

extension Dictionary: SettingValue where Key == String, Value: SettingValue {
    /// Stores an `NSDictionary`.
    public static func _storedValue(of value: [String: Value]) throws -> _StoredValue {
        .dictionary(try value.mapValues(Value._storedValue(of:)))
    }

    /// Accepts a stored dictionary whose every value fits.
    public static func _value(from stored: _StoredValue) throws -> [String: Value] {
        guard case .dictionary(let entries) = stored else {
            throw _StoredValueMismatch(expected: [String: Value].self, found: stored)
        }
        return try entries.mapValues(Value._value(from:))
    }

    /// Key by key.
    public static func _isSameSettingValue(_ lhs: [String: Value], _ rhs: [String: Value]) -> Bool {
        lhs.count == rhs.count
            && lhs.allSatisfy { key, value in rhs[key].map { Value._isSameSettingValue(value, $0) } ?? false }
    }
}
