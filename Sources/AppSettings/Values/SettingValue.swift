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
/// A type that is `RawRepresentable` and `Codable` is stored by its raw value. Each default is a
/// ``SettingRepresentation`` you can also choose yourself, including `converted(_:to:storing:reading:)`,
/// which stores any type as another setting type. A type that is none of these and declares none
/// does not compile as a setting.
///
/// An `NSSecureCoding` class of Apple's frameworks (`NSColor`, `UIColor`, …) compiles but
/// cannot be stored (only `NSKeyedUnarchiver` decodes it): saving throws
/// ``AppSettingsError/encodingFailed(key:setting:reason:)``. See <doc:StorableTypes> for every way,
/// and what each stores.
public protocol SettingValue {
    /// How values of this type are stored, read back, compared, and read from JSON and from
    /// overrides.
    ///
    /// Every built-in type has one, and `RawRepresentable`, `Codable` and `NSSecureCoding` types
    /// get theirs from a default. Implement it to choose another (see ``SettingRepresentation``).
    static var settingRepresentation: SettingRepresentation { get }
}

// MARK: - The defaults for a type of yours

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
    /// Stores the raw value: `SettingRepresentation.rawValue(_:)`.
    public static var settingRepresentation: SettingRepresentation { .rawValue(Self.self) }
}

extension SettingValue where Self: RawRepresentable & Equatable, RawValue: SettingValue {
    /// Stores the raw value; an assignment of an equal value is skipped.
    public static var settingRepresentation: SettingRepresentation { .rawValue(Self.self) }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
    /// Stores the raw value (a raw-value type that is also `Codable` is stored like one that is not).
    public static var settingRepresentation: SettingRepresentation { .rawValue(Self.self) }
}

extension SettingValue where Self: RawRepresentable & Codable & Equatable, RawValue: SettingValue {
    /// Stores the raw value (a raw-value type that is also `Codable` is stored like one that is
    /// not); an assignment of an equal value is skipped.
    public static var settingRepresentation: SettingRepresentation { .rawValue(Self.self) }
}

extension SettingValue where Self: Codable {
    /// Stores the value's property-list form.
    public static var settingRepresentation: SettingRepresentation { .codable(Self.self) }
}

extension SettingValue where Self: Codable & Equatable {
    /// Stores the value's property-list form; an assignment of an equal value is skipped.
    public static var settingRepresentation: SettingRepresentation { .codable(Self.self) }
}

extension SettingValue where Self: NSObject & NSSecureCoding {
    /// Stores the object as a nested keyed archive.
    public static var settingRepresentation: SettingRepresentation { .secureCoding(Self.self) }
}

// MARK: - Built-in types

extension Bool: SettingValue {
    /// A Boolean `NSNumber`; reads a Boolean, or the integers 0 and 1.
    public static let settingRepresentation = SettingRepresentation(BoolWitness())
}

extension Int: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<Int>())
}

extension Int8: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<Int8>())
}

extension Int16: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<Int16>())
}

extension Int32: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<Int32>())
}

extension Int64: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<Int64>())
}

extension UInt: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<UInt>())
}

extension UInt8: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<UInt8>())
}

extension UInt16: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<UInt16>())
}

extension UInt32: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<UInt32>())
}

extension UInt64: SettingValue {
    /// An integer `NSNumber`; reads any stored number that fits exactly.
    public static let settingRepresentation = SettingRepresentation(IntegerWitness<UInt64>())
}

extension Double: SettingValue {
    /// A double-precision `NSNumber`; reads any stored number. NaN is the same as NaN.
    public static let settingRepresentation = SettingRepresentation(RealWitness<Double>())
}

extension Float: SettingValue {
    /// A single-precision `NSNumber`; reads any stored number. NaN is the same as NaN.
    public static let settingRepresentation = SettingRepresentation(RealWitness<Float>())
}

extension String: SettingValue {
    /// An `NSString`.
    public static let settingRepresentation = SettingRepresentation(StringWitness())
}

extension Data: SettingValue {
    /// An `NSData`; reads base64 text too (its JSON form).
    public static let settingRepresentation = SettingRepresentation(DataWitness())
}

extension Date: SettingValue {
    /// An `NSDate`; reads ISO 8601 text too (its JSON form).
    public static let settingRepresentation = SettingRepresentation(DateWitness())
}

extension URL: SettingValue {
    /// An `NSURL` holding the absolute string, whatever the scheme; reads a URL string too.
    public static let settingRepresentation = SettingRepresentation(URLWitness())
}

extension UUID: SettingValue {
    /// An `NSUUID`; reads its string form too.
    public static let settingRepresentation = SettingRepresentation(UUIDWitness())
}

extension Optional: SettingValue where Wrapped: SettingValue {
    /// `NSNull` for `nil`, the wrapped value's form otherwise.
    public static var settingRepresentation: SettingRepresentation {
        SettingRepresentation(OptionalWitness(wrapped: Wrapped.settingWitness))
    }
}

extension Array: SettingValue where Element: SettingValue {
    /// An `NSArray` of the elements' forms; reads a stored set too.
    public static var settingRepresentation: SettingRepresentation {
        SettingRepresentation(ArrayWitness(element: Element.settingWitness))
    }
}

extension Set: SettingValue where Element: SettingValue {
    /// An `NSSet` of the elements' forms; reads a stored array too.
    public static var settingRepresentation: SettingRepresentation {
        SettingRepresentation(SetWitness(element: Element.settingWitness))
    }
}

extension Dictionary: SettingValue where Key == String, Value: SettingValue {
    /// An `NSDictionary` of the values' forms.
    public static var settingRepresentation: SettingRepresentation {
        SettingRepresentation(DictionaryWitness(value: Value.settingWitness))
    }
}
