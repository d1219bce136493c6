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
    /// one description of what each type accepts, and every export is checked against it. A
    /// `Codable` value is an object of the members its `init(from:)` reads from its encoded
    /// developer default. A `RawRepresentable` type that is not `CaseIterable` is described by its
    /// raw type alone; for the rest a schema cannot say (a `Date` range, `validate:`), see
    /// <doc:DescribingSettings>.
    ///
    /// - Returns: The schema as UTF-8 JSON text, pretty printed with its keys sorted.
    public static func jsonSchema() -> Data {
        let object = ScratchCopyDefaults.describing(self)
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
        schemaProperties(defaultsFrom: includingDefaults ? developerDefaults() : nil)
    }

    /// An object of this class holding what a new one holds: its developer defaults, as the
    /// class's `resetToDeveloperDefaults()` gives them (an override may set others than the
    /// declared values). Made unseen, never loaded.
    func developerDefaults() -> AppSettingsObject {
        let fresh = ScratchCopyDefaults.describing(type(of: object))
        fresh.resetToDeveloperDefaults()
        return fresh
    }

    /// The properties, each default the value the same setting of `defaults` holds.
    func schemaProperties(defaultsFrom defaults: AppSettingsObject?) -> [SchemaProperty] {
        var defaultSlots: [String: AnySettingSlot] = [:]
        for slot in defaults?.slots ?? [] { defaultSlots[slot.name] = slot }
        return slots.filter { !$0.isConstant }.map { slot in
            let reset = defaultSlots[slot.name]
            let nested = slot.nestedObject.map {
                SchemaNode.object($0.forms.schemaProperties(defaultsFrom: reset?.nestedObject))
            }
            var property = SchemaProperty(
                name: slot.name, node: nested ?? slot.schemaNode, range: slot.rules.range,
                description: slot.rules.description, defaultValue: reset?.storedForm?.jsonForm,
                settingsApp: slot.settingsAppEntry)
            property.settingsApp?.defaultValue = property.defaultValue
            property.isCheckedByApp = slot.rules.checkedByApp
            return property
        }
    }
}
