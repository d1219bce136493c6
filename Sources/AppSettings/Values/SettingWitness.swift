import Foundation

/// The witness of some setting type, whatever the type (what `SettingRepresentation` stores).
@usableFromInline
class AnySettingWitness: @unchecked Sendable {
    /// The type whose values the witness converts: checked before the witness is used as a
    /// `SettingWitness` of a given type.
    final let valueType: Any.Type

    init(valueType: Any.Type) {
        self.valueType = valueType
    }
}

/// The conversions of the setting type `Value`. Immutable once made (hence `@unchecked Sendable`).
///
/// The members here are the defaults a kind overrides.
@usableFromInline
class SettingWitness<Value>: AnySettingWitness, @unchecked Sendable {
    init() {
        super.init(valueType: Value.self)
    }

    /// The stored form of `value`; throws when it has none (the save then names the setting).
    func storedValue(of value: Value) throws -> StoredValue {
        throw StoredValueMismatch(expected: Value.self, foundDescription: "a value with no stored form")
    }

    /// Reads a value from its stored form; throws ``StoredValueMismatch`` if it does not fit.
    func value(from stored: StoredValue) throws -> Value {
        throw StoredValueMismatch(expected: Value.self, found: stored)
    }

    /// Whether two values are the same setting value (used to skip changes that change nothing).
    /// By default the stored forms are compared: correct for every storable type; `Equatable`
    /// kinds override it with `==`.
    @usableFromInline
    func isSame(_ lhs: Value, _ rhs: Value) -> Bool {
        // A value that cannot be encoded counts as changed: a change is never missed.
        guard let left = try? storedValue(of: lhs), let right = try? storedValue(of: rhs) else { return false }
        return left == right
    }

    /// Reads a value of this type's JSON form (as JSON gives it: numbers, strings, Booleans, null,
    /// arrays, dictionaries; a date is a string) into the stored form `value(from:)` reads; throws
    /// ``StoredValueMismatch`` if it does not fit. By default the value is taken as it is: only
    /// what JSON writes differently needs a reading, and `value(from:)` then checks the rest (an
    /// integer out of range, a raw value with no case).
    func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        value
    }

    /// Reads the value of an override (a launch argument, an environment variable, managed
    /// configuration): as `value(from:)`, but a string may also be the value's text form (`YES`,
    /// `0.3`, `(a, b)`, JSON, base64); throws ``StoredValueMismatch`` if it does not fit.
    ///
    /// By default (an `NSSecureCoding` class, a settings object in a collection): the stored form
    /// itself, or a string holding it as property-list text, JSON or base64 data.
    func overrideValue(from stored: StoredValue) throws -> Value {
        guard case .string(let text) = stored else { return try value(from: stored) }
        if let value = try? value(from: stored) { return value }
        if let tree = OverrideText.tree(text), let value = try? value(from: tree) { return value }
        if let data = TextForms.data(fromBase64: text) { return try value(from: .data(data)) }
        throw OverrideText.mismatch(Value.self, text)
    }

    /// The form of this type's values in a JSON document, for ``AppSettingsObject/jsonSchema()``
    /// and the checks of the `appsettings` tool. By default any JSON value.
    var schemaNode: SchemaNode { .any }

    /// The form of a setting of this type whose developer default is `value`: `schemaNode`, but
    /// for a `Codable` type, whose form is read from its encoded default.
    func schemaNode(describing value: Value) -> SchemaNode { schemaNode }
}

extension SettingWitness {
    /// The witness `representation` holds, when it is one for `Value`; otherwise one that refuses
    /// every conversion, naming both types (a representation written for another type).
    static func resolving(_ representation: SettingRepresentation) -> SettingWitness<Value> {
        let witness = representation.witness
        guard witness.valueType == Value.self else {
            return MismatchedWitness<Value>(describedType: witness.valueType)
        }
        // Checked above: a witness made for `Value` is a `SettingWitness<Value>`.
        return unsafeDowncast(witness, to: SettingWitness<Value>.self)
    }
}

/// The witness of a type whose `settingRepresentation` describes another type: every conversion
/// fails with a message that says so, so the save and the load name the setting.
final class MismatchedWitness<Value>: SettingWitness<Value>, @unchecked Sendable {
    let problem: String

    init(describedType: Any.Type) {
        problem =
            "\(Value.self).settingRepresentation describes \(describedType), not \(Value.self): pass "
            + "\(Value.self).self (or Self.self) as its first argument"
        super.init()
    }

    override func storedValue(of value: Value) throws -> StoredValue {
        throw StoredValueMismatch(expected: Value.self, foundDescription: problem)
    }

    override func value(from stored: StoredValue) throws -> Value {
        throw StoredValueMismatch(expected: Value.self, foundDescription: "\(stored.kindDescription) (\(problem))")
    }

    override func isSame(_ lhs: Value, _ rhs: Value) -> Bool { false }

    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        throw StoredValueMismatch(expected: Value.self, foundDescription: "\(value.kindDescription) (\(problem))")
    }

    override func overrideValue(from stored: StoredValue) throws -> Value {
        try value(from: stored)
    }
}

extension SettingValue {
    /// This type's witness, resolved from ``settingRepresentation`` on every call (a slot keeps
    /// its own: `SettingSlot.witness`).
    static var settingWitness: SettingWitness<Self> {
        SettingWitness<Self>.resolving(settingRepresentation)
    }

    // The conversions by the type's name (`Int.value(from:)`), for the tests and the few places
    // without a slot; each resolves the witness, so hot paths use a slot's.

    /// Converts a value to its stored form.
    static func storedValue(of value: Self) throws -> StoredValue {
        try settingWitness.storedValue(of: value)
    }

    /// Reads a value back from its stored form; throws ``StoredValueMismatch`` if it does not fit.
    static func value(from stored: StoredValue) throws -> Self {
        try settingWitness.value(from: stored)
    }

    /// Whether two values are the same setting value.
    static func isSameSettingValue(_ lhs: Self, _ rhs: Self) -> Bool {
        settingWitness.isSame(lhs, rhs)
    }

    /// Reads a value of this type's JSON form into its stored form.
    static func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try settingWitness.storedValue(fromJSONForm: value)
    }

    /// Reads the value of an override.
    static func overrideValue(from stored: StoredValue) throws -> Self {
        try settingWitness.overrideValue(from: stored)
    }

    /// The form of this type's values in a JSON document.
    static var settingSchemaNode: SchemaNode { settingWitness.schemaNode }
}
