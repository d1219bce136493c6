import Foundation

/// A settings set's JSON Schema (draft 2020-12), from its properties: what
/// `AppSettingsObject.jsonSchema()` returns and `appsettings schema` prints.
enum JSONSchema {
    static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// The schema of a document of `properties`, pretty printed with its keys sorted.
    static func document(properties: [SchemaProperty], title: String, schemaVersion: Int?) -> Data {
        var schema = object(properties)
        var versionSchema: [String: Any] = ["type": "integer", "minimum": 0]
        if let schemaVersion {
            // A newer version is refused on import: this class cannot read what a later one wrote.
            versionSchema["maximum"] = schemaVersion
            versionSchema["description"] =
                "The schema version of the settings class; an older one is migrated on import, a newer one "
                + "refused (this schema describes version \(schemaVersion))"
        }
        var documentProperties = schema["properties"] as? [String: Any] ?? [:]
        documentProperties[JSONForm.schemaVersionKey] = versionSchema
        schema["properties"] = documentProperties
        schema["$schema"] = dialect
        schema["title"] = title
        do {
            return try JSONForm.documentData(schema)
        } catch {
            // Every part above is a JSON value by construction.
            preconditionFailure("a JSON Schema without JSON form: \(error)")
        }
    }

    /// An object of settings: each property, and no others.
    static func object(_ properties: [SchemaProperty]) -> [String: Any] {
        var byName: [String: Any] = [:]
        for property in properties { byName[property.name] = schema(of: property) }
        return ["type": "object", "properties": byName, "additionalProperties": false]
    }

    /// What the schema says of a setting with `validate:` (`$comment`, which validators ignore).
    static let checkedByAppComment =
        "The app's validate: rule checks this setting too, when the app loads it: it may change a value this "
        + "schema accepts."

    static func schema(of property: SchemaProperty) -> [String: Any] {
        var schema = schema(of: property.node, range: property.range)
        if property.isCheckedByApp {
            schema["$comment"] = [schema["$comment"] as? String, checkedByAppComment].compactMap { $0 }
                .joined(separator: " ")
        }
        if let description = property.description { schema["description"] = description }
        if let value = property.defaultValue { schema["default"] = JSONForm.jsonValue(value) }
        return schema
    }

    /// The schema of one form; `range` bounds the number (or date) it holds.
    static func schema(of node: SchemaNode, range: SchemaRange? = nil) -> [String: Any] {
        switch node {
        case .boolean:
            return ["type": "boolean"]
        case .integer(let minimum, let maximum):
            return [
                "type": "integer",
                "minimum": range.map { JSONForm.jsonValue($0.lowerBound) } ?? minimum,
                "maximum": range.map { JSONForm.jsonValue($0.upperBound) } ?? maximum,
            ]
        case .real(let isFloat):
            if let range {
                return [
                    "type": "number", "minimum": JSONForm.jsonValue(range.lowerBound),
                    "maximum": JSONForm.jsonValue(range.upperBound),
                ]
            }
            // Finite numbers within the type's range (JSON has no others; a validator that reads
            // `1e400` as infinity is refused it here, as the library refuses it).
            let limit = isFloat ? TextForms.floatMagnitudeLimit : Double.greatestFiniteMagnitude
            let number: [String: Any] = ["type": "number", "minimum": -limit, "maximum": limit]
            return ["anyOf": [number, ["enum": ["nan", "inf", "-inf"]]]]
        case .string:
            return ["type": "string"]
        case .url:
            return ["type": "string", "minLength": 1, "pattern": TextForms.urlPattern]
        case .date:
            var date: [String: Any] = ["type": "string", "format": "date-time", "pattern": TextForms.datePattern]
            if let range {
                date["formatMinimum"] = JSONForm.jsonValue(range.lowerBound)
                date["formatMaximum"] = JSONForm.jsonValue(range.upperBound)
            }
            return date
        case .data:
            return ["type": "string", "contentEncoding": "base64", "pattern": TextForms.base64Pattern]
        case .uuid:
            return ["type": "string", "format": "uuid", "pattern": uuidPattern]
        case .any:
            return [:]
        case .optional(let wrapped):
            return ["anyOf": [schema(of: wrapped, range: range), ["type": "null"]]]
        case .array(let element):
            return ["type": "array", "items": schema(of: element)]
        case .dictionary(let element):
            return ["type": "object", "additionalProperties": schema(of: element)]
        case .choices(let raw, let values):
            var schema = schema(of: raw, range: range)
            schema["enum"] = values.map(JSONForm.jsonValue)
            return schema
        case .object(let properties):
            return object(properties)
        case .members(let members):
            var byName: [String: Any] = [:]
            for member in members { byName[member.name] = schema(of: member.node) }
            var schema: [String: Any] = ["type": "object", "properties": byName, "additionalProperties": false]
            let required = members.filter(\.isRequired).map(\.name).sorted()
            if !required.isEmpty { schema["required"] = required }
            return schema
        case .undescribed(let reason):
            return [
                "$comment": "AppSettings cannot describe this value's form (\(reason)): any JSON value passes here, "
                    + "and the app's import checks it"
            ]
        }
    }

    static let uuidPattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
}
