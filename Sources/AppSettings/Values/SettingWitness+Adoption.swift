import Foundation

// The witnesses of the ways a type of the app's is stored (`SettingRepresentation`'s `rawValue`,
// `codable`, `secureCoding` and `converted`). The `Equatable…` subclasses compare with `==`.

// MARK: - Raw values

class RawValueWitness<Value: RawRepresentable>: SettingWitness<Value>, @unchecked Sendable
where Value.RawValue: SettingValue {
    let raw: SettingWitness<Value.RawValue>

    override init() {
        raw = Value.RawValue.settingWitness
        super.init()
    }

    /// The raw value's stored form.
    override func storedValue(of value: Value) throws -> StoredValue {
        try raw.storedValue(of: value.rawValue)
    }

    /// The raw value; a raw value with no matching case is a mismatch.
    override func value(from stored: StoredValue) throws -> Value {
        try value(ofRawValue: raw.value(from: stored))
    }

    /// The raw value's form.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try raw.storedValue(fromJSONForm: value)
    }

    /// The raw value's text form (`dark` for `Theme.dark`).
    override func overrideValue(from stored: StoredValue) throws -> Value {
        try value(ofRawValue: raw.overrideValue(from: stored))
    }

    /// The raw value's form; for a `CaseIterable` type, one of the cases' raw values.
    override var schemaNode: SchemaNode {
        guard let cases = Value.self as? any CaseIterable.Type else { return raw.schemaNode }
        let values = allCases(of: cases).compactMap {
            ($0 as? Value).flatMap { try? storedValue(of: $0).jsonForm }
        }
        return .choices(raw.schemaNode, values)
    }

    /// The value of `rawValue`; a raw value with no matching case is a mismatch.
    private func value(ofRawValue rawValue: Value.RawValue) throws -> Value {
        guard let value = Value(rawValue: rawValue) else {
            throw StoredValueMismatch(expected: Value.self, foundDescription: "raw value \(rawValue) with no match")
        }
        return value
    }
}

/// The cases of a `CaseIterable` type, whatever the type.
func allCases<Cases: CaseIterable>(of type: Cases.Type) -> [Any] { Array(type.allCases) }

final class EquatableRawValueWitness<Value: RawRepresentable & Equatable>: RawValueWitness<Value>, @unchecked Sendable
where Value.RawValue: SettingValue {
    override func isSame(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }
}

// MARK: - Codable

class CodableWitness<Value: Codable>: SettingWitness<Value>, @unchecked Sendable {
    /// The forms read from each default described (`schemaNode(describing:)`): a setting's is
    /// asked for at each document, and its default does not change.
    private let forms = Protected<[StoredValue: SchemaNode]>([:])

    /// The value's property-list form, as `PropertyListEncoder` produces it.
    override func storedValue(of value: Value) throws -> StoredValue {
        try StoredValueDecoding.encodedTree(value)
    }

    /// Decodes the value from its property-list form with `PropertyListDecoder`.
    override func value(from stored: StoredValue) throws -> Value {
        guard let propertyList = stored.propertyListValue else {
            throw StoredValueMismatch(expected: Value.self, found: stored)
        }
        do {
            let data = try PropertyListSerialization.data(fromPropertyList: [propertyList], format: .binary, options: 0)
            let decoded = try PropertyListDecoder().decode([Value].self, from: data)
            guard decoded.count == 1 else { throw StoredValueMismatch(expected: Value.self, found: stored) }
            return decoded[0]
        } catch let error as StoredValueMismatch {
            throw error
        } catch {
            // Its JSON form (dates as text, Data as base64), as the `appsettings` tool may store it,
            // read by the library's decoder, whose refusal says where and what in words (not
            // `DecodingError`'s).
            return try StoredValueDecoding.decode(Value.self, from: stored)
        }
    }

    /// The value its JSON form gives (dates as ISO 8601 text, `Data` as base64, non-finite numbers
    /// as `"nan"`, `"inf"` and `"-inf"`, numbers exactly as written), stored as any other value of
    /// the type is.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try storedValue(of: StoredValueDecoding.decode(Value.self, from: value))
    }

    /// The property-list form, or JSON, or property-list text (`{width = 300; height = 200;}`,
    /// whose numbers arrive as text and are read as numbers when the type needs them).
    override func overrideValue(from stored: StoredValue) throws -> Value {
        guard case .string(let text) = stored else { return try decodedOverride(stored) }
        if let value = try? value(from: stored) { return value }
        guard let tree = OverrideText.tree(text) else { throw OverrideText.mismatch(Value.self, text) }
        return try decodedOverride(tree)
    }

    /// The form the type reads, found from made-up values (an element of a collection).
    override var schemaNode: SchemaNode { StoredValueDecoding.form(of: Value.self, example: nil) }

    /// The form the type reads, found by decoding `value`'s stored form (a setting's default).
    override func schemaNode(describing value: Value) -> SchemaNode {
        guard let example = try? storedValue(of: value) else { return schemaNode }
        if let known = forms.withLock({ $0[example] }) { return known }
        let form = StoredValueDecoding.form(of: Value.self, example: example)
        forms.withLock { $0[example] = form }
        return form
    }

    /// Decodes `tree`, and when that fails, the same tree with its strings that read as numbers
    /// or Booleans taken as such.
    private func decodedOverride(_ tree: StoredValue) throws -> Value {
        do {
            return try StoredValueDecoding.decode(Value.self, from: tree)
        } catch {
            let scalars = OverrideText.scalars(in: tree)
            guard scalars != tree, let value = try? StoredValueDecoding.decode(Value.self, from: scalars) else {
                throw error
            }
            return value
        }
    }
}

final class EquatableCodableWitness<Value: Codable & Equatable>: CodableWitness<Value>, @unchecked Sendable {
    override func isSame(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }
}

// MARK: - NSSecureCoding

final class SecureCodingWitness<Value: NSObject & NSSecureCoding>: SettingWitness<Value>, @unchecked Sendable {
    /// The object as a nested keyed archive (`NSData`) written by Foundation's archiver.
    ///
    /// Throws (the save fails, naming the setting) for a class of Apple's frameworks, whose
    /// `init(coder:)` needs `NSKeyedUnarchiver` itself: the library's decoder could never read it back.
    override func storedValue(of value: Value) throws -> StoredValue {
        // The declared class decides: the decoder is asked for it (an instance may be a private
        // subclass, such as `__NSCFString` for `NSString`).
        guard SecureArchiveDecoder.canDecode(Value.self) else {
            throw ArchiveFormatError(
                "\(NSStringFromClass(Value.self)) is a system framework class, which only NSKeyedUnarchiver "
                    + "decodes; the library cannot read it back. Store its parts instead (for a color, "
                    + "a Codable struct of its components)")
        }
        return .data(try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true))
    }

    /// Decodes the nested archive with the library's own defensive reader (never with Foundation's
    /// `NSKeyedUnarchiver`, which can stop the process on damaged bytes); `Value` is the only class
    /// besides Foundation's that it may contain. Any problem is a mismatch, never a trap.
    override func value(from stored: StoredValue) throws -> Value {
        // Base64 text is its JSON form, as the `appsettings` tool may store it.
        guard case .data(let data) = try JSONForm.data(stored, for: Value.self) else {
            throw StoredValueMismatch(expected: Value.self, found: stored)
        }
        do {
            return try SecureArchiveDecoder.decodeRoot(Value.self, from: data)
        } catch {
            throw StoredValueMismatch(expected: Value.self, foundDescription: "an unusable archive (\(error))")
        }
    }

    /// `==`: `isEqual(_:)`.
    override func isSame(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }

    /// Base64 text of the object's archive, as it is stored.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try JSONForm.data(value, for: Value.self)
    }

    /// Base64 text of the object's archive.
    override var schemaNode: SchemaNode { .data }
}

// MARK: - Converted

class ConvertedWitness<Value, Stored: SettingValue>: SettingWitness<Value>, @unchecked Sendable {
    let stored: SettingWitness<Stored>
    let storing: @Sendable (Value) throws -> Stored
    let reading: @Sendable (Stored) throws -> Value

    init(storing: @escaping @Sendable (Value) throws -> Stored, reading: @escaping @Sendable (Stored) throws -> Value) {
        stored = Stored.settingWitness
        self.storing = storing
        self.reading = reading
        super.init()
    }

    /// The stored type's form of what `storing` returns; an error it throws fails the save.
    override func storedValue(of value: Value) throws -> StoredValue {
        try stored.storedValue(of: storing(value))
    }

    /// What `reading` makes of the stored type's value; an error it throws is a mismatch that
    /// carries its text.
    override func value(from storedValue: StoredValue) throws -> Value {
        try read(stored.value(from: storedValue), kind: storedValue.kindDescription)
    }

    /// The stored type's form.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try stored.storedValue(fromJSONForm: value)
    }

    /// The stored type's text form, then `reading`.
    override func overrideValue(from storedValue: StoredValue) throws -> Value {
        try read(stored.overrideValue(from: storedValue), kind: storedValue.kindDescription)
    }

    /// The stored type's form.
    override var schemaNode: SchemaNode { stored.schemaNode }

    private func read(_ value: Stored, kind: String) throws -> Value {
        do {
            return try reading(value)
        } catch let mismatch as StoredValueMismatch {
            throw mismatch
        } catch {
            throw StoredValueMismatch(
                expected: Value.self, foundDescription: "\(kind) that it could not read (\(error))")
        }
    }
}

final class EquatableConvertedWitness<Value: Equatable, Stored: SettingValue>: ConvertedWitness<Value, Stored>,
    @unchecked Sendable
{
    override func isSame(_ lhs: Value, _ rhs: Value) -> Bool { lhs == rhs }
}
