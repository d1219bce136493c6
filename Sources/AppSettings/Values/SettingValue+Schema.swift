import Foundation

// How each kind of setting describes its JSON form (`jsonSchema()`, the schema the archive
// carries for the `appsettings` tool). The constrained extensions mirror those of
// `SettingValue+JSON.swift`: a type that is both `RawRepresentable` and `Codable` is described by
// its raw value, as it is stored.

/// The form of a setting type's values in a JSON document. An implementation detail of
/// ``SettingValue``: every storable type has one; do not implement it yourself.
public struct _SettingSchema: Sendable {
    let node: SchemaNode
}

extension SettingValue {
    /// A type the library does not describe: any JSON value.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .any) }
}

extension Bool {
    /// `true` or `false`.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .boolean) }
}

extension _StoredInteger where Self: Codable {
    /// An integer within the type's bounds.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .integer(Self.self)) }
}

extension Double {
    /// A number, or `"nan"`, `"inf"`, `"-inf"`.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .real(isFloat: false)) }
}

extension Float {
    /// A number within `Float`'s range, or `"nan"`, `"inf"`, `"-inf"`.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .real(isFloat: true)) }
}

extension String {
    /// A string.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .string) }
}

extension Date {
    /// ISO 8601 text.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .date) }
}

extension Data {
    /// Base64 text.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .data) }
}

extension URL {
    /// A string.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .url) }
}

extension UUID {
    /// A UUID string.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .uuid) }
}

extension Optional where Wrapped: SettingValue {
    /// The wrapped type's form, or `null`.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .optional(Wrapped._settingSchema.node)) }
}

extension Array where Element: SettingValue {
    /// An array of the element type's form.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .array(Element._settingSchema.node)) }
}

extension Set where Element: SettingValue {
    /// An array of the element type's form.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .array(Element._settingSchema.node)) }
}

extension Dictionary where Key == String, Value: SettingValue {
    /// An object of the value type's form.
    public static var _settingSchema: _SettingSchema {
        _SettingSchema(node: .dictionary(Value._settingSchema.node))
    }
}

extension SettingValue where Self: RawRepresentable, RawValue: SettingValue {
    /// The raw value's form.
    public static var _settingSchema: _SettingSchema { RawValue._settingSchema }
}

extension SettingValue where Self: RawRepresentable & Codable, RawValue: SettingValue {
    /// The raw value's form.
    public static var _settingSchema: _SettingSchema { RawValue._settingSchema }
}

extension SettingValue where Self: RawRepresentable & CaseIterable, RawValue: SettingValue {
    /// One of the cases' raw values.
    public static var _settingSchema: _SettingSchema { choicesSchema }
}

extension SettingValue where Self: RawRepresentable & CaseIterable & Codable, RawValue: SettingValue {
    /// One of the cases' raw values.
    public static var _settingSchema: _SettingSchema { choicesSchema }
}

extension SettingValue where Self: RawRepresentable & CaseIterable, RawValue: SettingValue {
    /// The raw values of every case, in their JSON form.
    static var choicesSchema: _SettingSchema {
        let values = allCases.compactMap { try? RawValue._storedValue(of: $0.rawValue).jsonForm }
        return _SettingSchema(node: .choices(RawValue._settingSchema.node, values))
    }
}

extension SettingValue where Self: NSObject & NSSecureCoding {
    /// Base64 text of the object's archive.
    public static var _settingSchema: _SettingSchema { _SettingSchema(node: .data) }
}

extension AppSettingsObject {
    /// An object of the class's settings.
    public static var _settingSchema: _SettingSchema {
        let object = Self(userDefaults: ScratchCopyDefaults.describingClass)
        return _SettingSchema(node: .object(object.schemaProperties()))
    }
}
