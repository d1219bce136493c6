import Foundation

/// A settings set's JSON Schema (draft 2020-12), from its properties: what
/// `AppSettingsObject.jsonSchema()` returns and `appsettings schema` prints.
enum JSONSchema {
    static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// The schema of a document of `properties`, pretty printed with its keys sorted.
    static func document(properties: [SchemaProperty], title: String, schemaVersion: Int?) -> Data {
        var schema = object(properties)
        var versionSchema: [String: Any] = ["type": "integer"]
        if let schemaVersion {
            versionSchema["description"] =
                "The schema version of the settings class; an older one is migrated on import (this schema "
                + "describes version \(schemaVersion))"
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

    static func schema(of property: SchemaProperty) -> [String: Any] {
        var schema = schema(of: property.node, range: property.range)
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
            var number: [String: Any] = ["type": "number"]
            if isFloat {
                number["minimum"] = -Double(Float.greatestFiniteMagnitude)
                number["maximum"] = Double(Float.greatestFiniteMagnitude)
            }
            return ["anyOf": [number, ["enum": ["nan", "inf", "-inf"]]]]
        case .string, .url:
            return ["type": "string"]
        case .date:
            var date: [String: Any] = ["type": "string", "format": "date-time", "pattern": datePattern]
            if let range {
                date["formatMinimum"] = JSONForm.jsonValue(range.lowerBound)
                date["formatMaximum"] = JSONForm.jsonValue(range.upperBound)
            }
            return date
        case .data:
            return ["type": "string", "contentEncoding": "base64", "pattern": base64Pattern]
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
        }
    }

    /// ISO 8601 with a time zone, any digits of fractional seconds (what a document's dates are read as).
    static let datePattern =
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.,][0-9]+)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)$"
    /// Base64 as `Data(base64Encoded:)` reads it: groups of four, padded.
    static let base64Pattern = "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
    static let uuidPattern = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
}
