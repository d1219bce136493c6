import Foundation

// The three ways one line, `extension T: SettingValue {}`, makes a type of yours storable.

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
    /// Stores the raw value.
    public static func _storedValue(of value: Self) throws -> _StoredValue {
        try rawStoredValue(of: value)
    }

    /// Reads the raw value; a raw value with no matching case is a mismatch.
    public static func _value(from stored: _StoredValue) throws -> Self {
        try value(fromRawStoredValue: stored)
    }

    static func rawStoredValue(of value: Self) throws -> _StoredValue {
        try RawValue._storedValue(of: value.rawValue)
    }

    static func value(fromRawStoredValue stored: _StoredValue) throws -> Self {
        try value(ofRawValue: RawValue._value(from: stored))
    }

    /// The case of `rawValue`; a raw value with no matching case is a mismatch.
    static func value(ofRawValue rawValue: RawValue) throws -> Self {
        guard let value = Self(rawValue: rawValue) else {
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "raw value \(rawValue) with no match")
        }
        return value
    }
}

extension SettingValue where Self: Codable {
    /// Stores the value's property-list form, as `PropertyListEncoder` produces it.
    public static func _storedValue(of value: Self) throws -> _StoredValue {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        // Wrapped in an array, because property-list encoders refuse a bare scalar at the top.
        let data = try encoder.encode([value])
        let propertyList = try PropertyListSerialization.propertyList(from: data, format: nil)
        guard let elements = propertyList as? [Any], elements.count == 1,
            let stored = _StoredValue(propertyListValue: elements[0])
        else {
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "a value with no property-list form")
        }
        return stored
    }

    /// Decodes the value from its property-list form with `PropertyListDecoder`.
    public static func _value(from stored: _StoredValue) throws -> Self {
        guard let propertyList = stored.propertyListValue else {
            throw _StoredValueMismatch(expected: Self.self, found: stored)
        }
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: [propertyList], format: .binary, options: 0)
            let decoded = try PropertyListDecoder().decode([Self].self, from: data)
            guard decoded.count == 1 else { throw _StoredValueMismatch(expected: Self.self, found: stored) }
            return decoded[0]
        } catch let error as _StoredValueMismatch {
            throw error
        } catch {
            // Its JSON form (dates as text, Data as base64), as the `appsettings` tool may store
            // it; when that fails too, the first error is the one reported.
            if let decoded = try? JSONForm.decoded(Self.self, from: stored) { return decoded }
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "\(stored.kindDescription) (\(error))")
        }
    }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
    /// Stores the raw value (a raw-value enum that is also `Codable` is stored like one that is not).
    public static func _storedValue(of value: Self) throws -> _StoredValue {
        try rawStoredValue(of: value)
    }

    /// Reads the raw value; a raw value with no matching case is a mismatch.
    public static func _value(from stored: _StoredValue) throws -> Self {
        try value(fromRawStoredValue: stored)
    }
}

extension SettingValue where Self: NSObject & NSSecureCoding {
    /// Stores the object as a nested keyed archive (`NSData`) written by Foundation's archiver.
    ///
    /// Throws (the save fails with ``AppSettingsError/encodingFailed(key:setting:reason:)``, naming
    /// the setting) when the library's decoder could never read the value back: an instance of a
    /// Foundation, AppKit or UIKit class (`NSColor`, `UIColor`, `NSAttributedString`, …), whose
    /// `init(coder:)` needs `NSKeyedUnarchiver` itself. Storing it would lose the setting silently.
    public static func _storedValue(of value: Self) throws -> _StoredValue {
        // The declared class decides: the decoder is asked for it (an instance may be a private
        // subclass, such as `__NSCFString` for `NSString`).
        guard SecureArchiveDecoder.canDecode(Self.self) else {
            throw ArchiveFormatError(
                "\(NSStringFromClass(Self.self)) is a system framework class, which only NSKeyedUnarchiver "
                    + "decodes; the library cannot read it back. Store its parts instead (for a color, "
                    + "a Codable struct of its components)")
        }
        return .data(try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true))
    }

    /// Decodes the nested archive with the library's own defensive reader (never with Foundation's
    /// `NSKeyedUnarchiver`, which can stop the process on damaged bytes); `Self` is the only class
    /// besides Foundation's that it may contain. Any problem is a mismatch, never a trap.
    public static func _value(from stored: _StoredValue) throws -> Self {
        // Base64 text is its JSON form, as the `appsettings` tool may store it.
        guard case .data(let data) = try JSONForm.data(stored, for: Self.self) else {
            throw _StoredValueMismatch(expected: Self.self, found: stored)
        }
        do {
            return try SecureArchiveDecoder.decodeRoot(Self.self, from: data)
        } catch {
            throw _StoredValueMismatch(expected: Self.self, foundDescription: "an unusable archive (\(error))")
        }
    }
}
