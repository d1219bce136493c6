import Foundation

/// How the values of a ``SettingValue`` type are stored: what ``SettingValue/settingRepresentation``
/// returns.
///
/// You rarely write one: the built-in types have theirs, and one line gives your own type the
/// right one (see ``SettingValue``). Write one when the default is not what you want, or when your
/// type is none of the kinds that have a default. Each way is one static member:
///
/// - `rawValue(_:)`: the raw value (a `String` enum is stored as its string).
/// - `codable(_:)`: the value's property-list form, as `PropertyListEncoder` writes it.
/// - ``secureCoding(_:)``: an `NSSecureCoding` object as a nested keyed archive.
/// - `converted(_:to:storing:reading:)`: the value as a value of another
///   setting type, through two conversions you write; reading may throw.
///
/// ```swift
/// struct HexColor: Equatable {
///     var red, green, blue: UInt8
///     init(hex: String) throws { ... }         // throws for text that is not a color
///     var hex: String { ... }
/// }
///
/// extension HexColor: SettingValue {
///     static var settingRepresentation: SettingRepresentation {
///         .converted(HexColor.self, to: String.self, storing: { $0.hex }, reading: { try HexColor(hex: $0) })
///     }
/// }
/// ```
///
/// Pass the conforming type itself as the first argument (`Self.self` in a class that is not final,
/// so that each subclass gets its own). A representation of another type is refused where it is
/// used: saving throws ``AppSettingsError/encodingFailed(key:setting:reason:)``, loading reports
/// ``AppSettingsError/unreadableSettings(key:settings:reasons:)``, both naming the setting.
///
/// An assignment that changes nothing (`settings.theme = settings.theme`) is skipped: for an
/// `Equatable` type `==` decides, for any other the stored forms are compared.
public struct SettingRepresentation: Sendable {
    /// The conversions, typed by the value type (`SettingWitness`).
    let witness: AnySettingWitness

    init(_ witness: AnySettingWitness) {
        self.witness = witness
    }
}

// MARK: - Raw values

extension SettingRepresentation {
    /// Stores a value as its raw value; a stored raw value with no matching value (a removed enum
    /// case) is reported as unreadable, and the setting keeps its developer default.
    ///
    /// The default for a `RawRepresentable` type whose raw value is a setting type, even when the
    /// type is `Codable` too. For a type that is also `CaseIterable`, the JSON Schema lists the raw
    /// values of its cases.
    ///
    /// - Parameter type: The type whose values are stored: the conforming type.
    public static func rawValue<Value: RawRepresentable>(_ type: Value.Type) -> SettingRepresentation
    where Value.RawValue: SettingValue {
        SettingRepresentation(RawValueWitness<Value>())
    }

    /// Stores a value as its raw value (see `rawValue(_:)`); an assignment of an
    /// equal value (`==`) is skipped.
    ///
    /// - Parameter type: The type whose values are stored: the conforming type.
    public static func rawValue<Value: RawRepresentable & Equatable>(_ type: Value.Type) -> SettingRepresentation
    where Value.RawValue: SettingValue {
        SettingRepresentation(EquatableRawValueWitness<Value>())
    }
}

// MARK: - Codable

extension SettingRepresentation {
    /// Stores a value as its property-list form, as `PropertyListEncoder` produces it (a struct is a
    /// dictionary of its properties), and reads it with `PropertyListDecoder` (or from its JSON
    /// form, as the `appsettings` tool may store it).
    ///
    /// The default for a `Codable` type that is not `RawRepresentable`.
    ///
    /// - Parameter type: The type whose values are stored: the conforming type.
    public static func codable<Value: Codable>(_ type: Value.Type) -> SettingRepresentation {
        SettingRepresentation(CodableWitness<Value>())
    }

    /// Stores a value as its property-list form (see `codable(_:)`); an assignment of
    /// an equal value (`==`) is skipped.
    ///
    /// - Parameter type: The type whose values are stored: the conforming type.
    public static func codable<Value: Codable & Equatable>(_ type: Value.Type) -> SettingRepresentation {
        SettingRepresentation(EquatableCodableWitness<Value>())
    }
}

// MARK: - NSSecureCoding

extension SettingRepresentation {
    /// Stores an object as a nested keyed archive (`NSData`) written by Foundation's archiver, and
    /// reads it with the library's own defensive decoder (never `NSKeyedUnarchiver`, which can stop
    /// the process on damaged bytes).
    ///
    /// The default for an `NSObject` subclass that adopts `NSSecureCoding`. A class of Apple's
    /// frameworks (`NSColor`, `UIColor`, `NSAttributedString`, …) cannot be read back by that
    /// decoder: saving one throws ``AppSettingsError/encodingFailed(key:setting:reason:)``, naming
    /// the setting.
    ///
    /// - Parameter type: The class whose objects are stored: the conforming class (`Self.self`).
    public static func secureCoding<Value: NSObject & NSSecureCoding>(_ type: Value.Type) -> SettingRepresentation {
        SettingRepresentation(SecureCodingWitness<Value>())
    }
}

// MARK: - Converted

extension SettingRepresentation {
    /// Stores a value as a value of another setting type.
    ///
    /// ```swift
    /// .converted(HexColor.self, to: String.self, storing: { $0.hex }, reading: { try HexColor(hex: $0) })
    /// ```
    ///
    /// The stored type decides everything else: the stored bytes, the JSON form
    /// (``AppSettingsObject/jsonRepresentation()``, the `appsettings` tool), the JSON Schema, and how
    /// an override's text is read (a launch argument `-color "#ff8800"` is read as a `String`, then
    /// by `reading`).
    ///
    /// - Parameters:
    ///   - type: The type whose values are stored: the conforming type.
    ///   - storedType: The setting type the values are stored as.
    ///   - storing: Converts a value to the stored type. An error it throws fails the save with
    ///     ``AppSettingsError/encodingFailed(key:setting:reason:)``, naming the setting.
    ///   - reading: Converts a stored value back. An error it throws makes the stored value
    ///     unreadable: the setting keeps its developer default and the load reports
    ///     ``AppSettingsError/unreadableSettings(key:settings:reasons:)`` with the error's text; an
    ///     override it refuses is listed in ``AppSettingsObject/ignoredOverrides``.
    public static func converted<Value, Stored: SettingValue>(
        _ type: Value.Type,
        to storedType: Stored.Type,
        storing: @escaping @Sendable (Value) throws -> Stored,
        reading: @escaping @Sendable (Stored) throws -> Value
    ) -> SettingRepresentation {
        SettingRepresentation(ConvertedWitness(storing: storing, reading: reading))
    }

    /// Stores a value as a value of another setting type, as `converted(_:to:storing:reading:)`
    /// does for any type (see there for the parameters); an assignment of an equal value (`==`)
    /// is skipped.
    public static func converted<Value: Equatable, Stored: SettingValue>(
        _ type: Value.Type,
        to storedType: Stored.Type,
        storing: @escaping @Sendable (Value) throws -> Stored,
        reading: @escaping @Sendable (Stored) throws -> Value
    ) -> SettingRepresentation {
        SettingRepresentation(EquatableConvertedWitness(storing: storing, reading: reading))
    }
}
