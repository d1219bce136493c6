import Foundation

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// The form in which a setting's value is stored: one node of a keyed archive.
///
/// Each case maps to what `NSKeyedArchiver` writes for the matching Foundation object (or, for a
/// number or Boolean that is a setting of its own, for the typed `encode(_:forKey:)`), so
/// `NSKeyedUnarchiver` can read a stored settings set. Internal: a type's
/// ``SettingRepresentation`` converts its values to and from this form.
package enum StoredValue: Hashable, Sendable {
    /// `NSNull`: what an `Optional` stores for `nil`.
    case null
    /// A Boolean `NSNumber`.
    case bool(Bool)
    /// An integer `NSNumber`.
    case integer(Int64)
    /// An integer `NSNumber` above `Int64.max`.
    case unsignedInteger(UInt64)
    /// A single-precision `NSNumber`.
    case float(Float)
    /// A double-precision `NSNumber`.
    case double(Double)
    /// A number read from text that is not an integer of 64 bits as written (`5.0`, `1e3`, `0.1`,
    /// `18446744073709551616`), kept as its text: only in a value read from JSON (`JSONReader`), so
    /// that a setting reads it exactly (an integer type takes it when its decimal value is an
    /// integer the type holds, a real type as the nearest value) and a refusal shows it as
    /// written; never stored.
    case numberText(String)
    /// An `NSString`.
    case string(String)
    /// An `NSData`.
    case data(Data)
    /// An `NSDate`.
    case date(Date)
    /// An `NSURL`, kept whole as its absolute string.
    case url(URL)
    /// An `NSUUID`.
    case uuid(UUID)
    /// An `NSArray`.
    case array([StoredValue])
    /// An `NSSet`.
    case set([StoredValue])
    /// An `NSDictionary` with string keys; nested settings objects are stored this way too.
    case dictionary([String: StoredValue])

    /// A short name of the stored kind, used in error messages.
    var kindDescription: String {
        switch self {
        case .null: "nil"
        case .bool: "Bool"
        case .integer, .unsignedInteger: "integer"
        case .float, .double, .numberText: "number"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .url: "URL"
        case .uuid: "UUID"
        case .array: "array"
        case .set: "set"
        case .dictionary: "dictionary"
        }
    }
}

/// Thrown by a setting type's conversions when a stored value does not fit the declared type.
///
/// The loader catches it: that setting keeps its developer default, and the mismatch is one of the
/// reasons of ``AppSettingsError/unreadableSettings(key:settings:reasons:)`` ("holds a string,
/// expected Float").
package struct StoredValueMismatch: Error, Sendable, CustomStringConvertible {
    /// The Swift type that was expected.
    package let expected: String
    /// What was found instead.
    package let found: String

    /// Creates a mismatch for `type` and the stored value that did not fit it.
    init(expected type: Any.Type, found value: StoredValue) {
        self.expected = String(describing: type)
        self.found = value.kindDescription
    }

    /// Creates a mismatch with a free-form description of what was found.
    init(expected type: Any.Type, foundDescription: String) {
        self.expected = String(describing: type)
        self.found = foundDescription
    }

    /// Creates a mismatch described in words on both sides (the tool types values by what is
    /// stored, not by a Swift type); `foundDescription` may be empty where the value is named
    /// beside the reason (an ignored override's).
    init(expectedDescription: String, foundDescription: String) {
        self.expected = expectedDescription
        self.found = foundDescription
    }

    /// `expected an integer in 0...100`, with what was found when it says more.
    package var description: String {
        found.isEmpty ? "expected \(expected)" : "expected \(expected), found \(found)"
    }
}

// MARK: - Property-list form

extension StoredValue {
    /// The property-list form used by `dictionaryRepresentation()`: URLs and UUIDs as strings,
    /// sets as arrays, `nil` as `nil` (the caller leaves the key out).
    var propertyListValue: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .integer(let value): Int(exactly: value) ?? value
        case .unsignedInteger(let value): value
        case .numberText(let text): NSDecimalNumber(string: text)
        case .float(let value): value
        case .double(let value): value
        case .string(let value): value
        case .data(let value): value
        case .date(let value): value
        case .url(let value): value.absoluteString
        case .uuid(let value): value.uuidString
        case .array(let values), .set(let values): values.map { $0.propertyListValue ?? NSNull() }
        case .dictionary(let values): values.compactMapValues { $0.propertyListValue }
        }
    }

    /// Reads a property-list value (as produced by `propertyListValue`, by
    /// `PropertyListSerialization`, or written by hand in Swift) back into a stored value.
    init?(propertyListValue value: Any) {
        // Elements of a bridged `NSSet` arrive wrapped.
        if let hashable = value as? AnyHashable, type(of: value) == AnyHashable.self {
            self.init(propertyListValue: hashable.base)
            return
        }
        if let scalar = Self.scalar(fromPropertyListValue: value) {
            self = scalar
            return
        }
        switch value {
        // A collection with an element that has no stored form has none.
        case let values as NSSet:
            let converted = values.compactMap { StoredValue(propertyListValue: $0) }
            guard converted.count == values.count else { return nil }
            self = .set(converted)
        case let values as [Any]:
            let converted = values.compactMap { StoredValue(propertyListValue: $0) }
            guard converted.count == values.count else { return nil }
            self = .array(converted)
        case let values as [String: Any]:
            let converted = values.compactMapValues { StoredValue(propertyListValue: $0) }
            guard converted.count == values.count else { return nil }
            self = .dictionary(converted)
        default:
            return nil
        }
    }

    /// Numbers are told apart by their dynamic type first and, for `NSNumber`, by its
    /// `objCType`, because a bridged `NSNumber` casts to `Bool`, `Int` and `Double` alike.
    private static func scalar(fromPropertyListValue value: Any) -> StoredValue? {
        switch value {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let url as URL: return .url(url)
        case let uuid as UUID: return .uuid(uuid)
        default: break
        }
        let type = Swift.type(of: value)
        if type == Bool.self, let bool = value as? Bool { return .bool(bool) }
        if type == Float.self, let float = value as? Float { return .float(float) }
        if type == Double.self, let double = value as? Double { return .double(double) }
        if let unsigned = value as? UInt64, type == UInt64.self || type == UInt.self,
            unsigned > UInt64(Int64.max)
        {
            return .unsignedInteger(unsigned)
        }
        // A Swift integer by its own type: on Darwin it also casts to `NSNumber`, whose `objCType`
        // for an `Int8` is "c", the type a Boolean reports.
        if !(type is NSObject.Type), type != Bool.self, type != Float.self, type != Double.self,
            let integer = value as? any BinaryInteger
        {
            return Int64(exactly: integer).map(StoredValue.integer)
        }
        guard let number = bridgedNumber(value) else { return nil }
        switch objCType(of: number) {
        case "B": return .bool(number.boolValue)
        // A `char`: a Boolean only if it is one (`CFBoolean`), else an integer made from a `char`.
        case "c": return isBoolean(number) ? .bool(number.boolValue) : .integer(number.int64Value)
        case "f": return .float(number.floatValue)
        case "d": return .double(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            let unsigned = number.uint64Value
            return unsigned > UInt64(Int64.max) ? .unsignedInteger(unsigned) : .integer(Int64(unsigned))
        default: return .integer(number.int64Value)
        }
    }
}

/// `value as? NSNumber`; in the stand-in build, as Darwin bridges it (the model's `DarwinBridging`).
private func bridgedNumber(_ value: Any) -> NSNumber? {
    #if APPLE_STAND_INS
        DarwinBridging.number(value)
    #else
        value as? NSNumber
    #endif
}

/// Whether `number` is a Boolean (`CFBoolean` on Darwin, `__NSCFBoolean` in corelibs), not a
/// number made from a `char`, which reports the same `objCType`.
private func isBoolean(_ number: NSNumber) -> Bool {
    type(of: number) == type(of: NSNumber(value: true))
}

/// `number.objCType`; in the stand-in build, the type Darwin gives it.
private func objCType(of number: NSNumber) -> String {
    #if APPLE_STAND_INS
        DarwinBridging.objCType(of: number)
    #else
        String(cString: number.objCType)
    #endif
}

// MARK: - Foundation-object form

extension StoredValue {
    /// The Foundation object `NSKeyedArchiver` would archive for this value; used by
    /// `AppSettingsObject.encode(with:)`.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): NSNumber(value: value)
        case .integer(let value): NSNumber(value: value)
        case .unsignedInteger(let value): NSNumber(value: value)
        case .numberText(let text): NSDecimalNumber(string: text)
        case .float(let value): NSNumber(value: value)
        case .double(let value): NSNumber(value: value)
        case .string(let value): NSString(string: value)
        case .data(let value): NSData(data: value)
        case .date(let value): NSDate(timeIntervalSinceReferenceDate: value.timeIntervalSinceReferenceDate)
        // A URL that NSURL cannot parse again is kept as its string, which a URL setting accepts.
        case .url(let value): NSURL(string: value.absoluteString) ?? NSString(string: value.absoluteString)
        case .uuid(let value):
            withUnsafeBytes(of: value.uuid) { NSUUID(uuidBytes: $0.bindMemory(to: UInt8.self).baseAddress!) }
        case .array(let values): NSArray(array: values.map(\.foundationObject))
        case .set(let values): NSSet(array: values.map(\.foundationObject))
        case .dictionary(let values):
            NSDictionary(
                objects: Array(values.values.map(\.foundationObject)),
                forKeys: values.keys.map { NSString(string: $0) }
            )
        }
    }
}

extension StoredValue {
    /// `entries` with `value` at `path`, a setting's name and those of the nested settings objects
    /// (dictionaries) above it. A dictionary missing on the way is made when
    /// `creatingDictionaries`; otherwise `entries` come back unchanged.
    package static func setting(
        _ value: StoredValue,
        at path: some Collection<String>,
        in entries: [String: StoredValue],
        creatingDictionaries: Bool
    ) -> [String: StoredValue] {
        guard let first = path.first else { return entries }
        var result = entries
        let rest = path.dropFirst()
        if rest.isEmpty {
            result[first] = value
        } else if case .dictionary(let nested)? = entries[first] {
            result[first] = .dictionary(
                setting(value, at: rest, in: nested, creatingDictionaries: creatingDictionaries))
        } else if creatingDictionaries {
            result[first] = .dictionary(setting(value, at: rest, in: [:], creatingDictionaries: true))
        }
        return result
    }
}
