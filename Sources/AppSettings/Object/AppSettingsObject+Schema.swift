import Foundation

// The set described for other tools: its JSON Schema (`jsonSchema()`), made from each setting's
// type, range, choices, description and developer default. See `Internal/Schema`.

extension AppSettingsObject {
    /// The JSON Schema (draft 2020-12) of this class's JSON documents: exactly those that
    /// ``jsonRepresentation()`` writes and ``update(fromJSON:replacingAll:)`` accepts.
    ///
    /// Every setting by stored name with its type (an optional also allows `null`), nested
    /// settings objects as objects of their settings, arrays and dictionaries with their element
    /// types, `minimum` and `maximum` from `@Setting(in:)`, `enum` with the raw values of a
    /// `CaseIterable` `RawRepresentable` type, `default` (the developer default) and
    /// `description`; `"$schemaVersion"`; no other properties. No setting is required: a
    /// document may name only some. Its `title` is the set's ``userDefaultsKeyPostfix`` (by
    /// default the class's name). `appsettings schema` prints the same bytes from the set a save
    /// stored.
    ///
    /// ```swift
    /// let schema: Data = MySettings.jsonSchema()
    /// try schema.write(to: URL(fileURLWithPath: "MySettings.schema.json"))
    /// ```
    ///
    /// A document the schema takes, the import takes, and the other way round: both are made from
    /// one description of what each type accepts (an integer of its type's range, a real number
    /// within its type's range before any rounding, an ISO 8601 date and time that names a real
    /// moment of the years 1 to 9999, canonical base64, a URL Foundation reads unchanged), and
    /// every export is checked against it. The tests generate documents from the schema and hold
    /// an independent validator and the import to the same verdict on each.
    ///
    /// What a schema cannot say: a `Date` range is given as `formatMinimum` and `formatMaximum`
    /// (validators that do not know them ignore them), a `Codable` value is any JSON value, and a
    /// `RawRepresentable` type that is not `CaseIterable` is described by its raw type alone (the
    /// import takes only raw values that make a case: make the type `CaseIterable` to list them).
    /// `validate:` closures and ``checkAfterDecode()`` run only in the app.
    ///
    /// - Returns: The schema as UTF-8 JSON text, pretty printed with its keys sorted.
    public static func jsonSchema() -> Data {
        let object = Self(userDefaults: ScratchCopyDefaults.describingClass)
        // Titled by the key's postfix, which the stored set knows too (its bytes never name the class).
        return JSONSchema.document(
            properties: object.forms.schemaProperties(), title: object.binding.key.postfix, schemaVersion: schemaVersion
        )
    }
}

extension SettingsForms {
    /// This object's settings as its schema describes them, in declaration order (nested settings
    /// objects from the objects themselves); with their developer defaults, unless told not to
    /// (the schema a save stores does not carry them).
    func schemaProperties(includingDefaults: Bool = true) -> [SchemaProperty] {
        slots.filter { !$0.isConstant }.map { slot in
            SchemaProperty(
                name: slot.name,
                node: slot.nestedObject.map { .object($0.forms.schemaProperties(includingDefaults: includingDefaults)) }
                    ?? slot.schemaNode,
                range: slot.rules.range,
                description: slot.rules.description,
                defaultValue: includingDefaults ? slot.defaultJSONForm : nil,
                settingsApp: slot.settingsAppEntry)
        }
    }
}
