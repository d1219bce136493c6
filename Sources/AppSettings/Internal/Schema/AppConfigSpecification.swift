import Foundation

/// A settings set's managed keys in the AppConfig community's specification format (the XML that
/// MDM consoles import to offer an app's managed configuration as a form).
///
/// Each setting an AppConfig type can hold is one key, named as the managed app configuration
/// names it: `<userDefaultsKey>.<stored name>` (a nested settings object's settings by dotted
/// path), read by `ManagedConfigurationSource` beside the `<userDefaultsKey>` dictionary. Types:
/// `boolean`, `integer`, `float` (`Float`, `Double`), `string` (also URLs and UUIDs), `date`,
/// `integerArray`, `floatArray`, `stringArray`; a range is the key's `constraint` `min` and `max`,
/// choices its `values`, an optional `nullable="true"`; the description goes to the
/// presentation. Settings of other forms (`Data`, dictionaries, `Codable` values, arrays of
/// other elements) cannot be managed through the format and are listed in a comment.
enum AppConfigSpecification {
    static func document(properties: [SchemaProperty], key: String, bundleIdentifier: String) -> Data {
        var keys: [String] = []
        var fields: [String] = []
        var unmanageable: [String] = []
        func add(_ properties: [SchemaProperty], prefix: String) {
            for property in properties.sorted(by: { $0.name < $1.name }) {
                let name = prefix + property.name
                let (node, nullable) = property.node.unwrapped
                if case .object(let nested) = node {
                    add(nested, prefix: name + ".")
                    continue
                }
                guard let (type, values) = appConfigType(of: node) else {
                    unmanageable.append(name)
                    continue
                }
                var constraint: [String] = []
                if let range = property.range, type == "integer" || type == "float" {
                    constraint.append("min=\"\(escaped(JSONForm.description(of: range.lowerBound)))\"")
                    constraint.append("max=\"\(escaped(JSONForm.description(of: range.upperBound)))\"")
                }
                if nullable { constraint.append("nullable=\"true\"") }
                var element = "        <\(type) keyName=\"\(escaped(name))\">\n"
                if property.defaultValue != nil || !constraint.isEmpty || !values.isEmpty {
                    if let value = property.defaultValue, value != .null, !type.hasSuffix("Array") {
                        element +=
                            "            <defaultValue><value>\(escaped(text(of: value)))</value></defaultValue>\n"
                    }
                    if !constraint.isEmpty || !values.isEmpty {
                        let attributes = constraint.isEmpty ? "" : " " + constraint.joined(separator: " ")
                        if values.isEmpty {
                            element += "            <constraint\(attributes)/>\n"
                        } else {
                            element += "            <constraint\(attributes)>\n                <values>\n"
                            for value in values {
                                element += "                    <value>\(escaped(text(of: value)))</value>\n"
                            }
                            element += "                </values>\n            </constraint>\n"
                        }
                    }
                }
                element += "        </\(type)>\n"
                keys.append(element)
                var field =
                    "        <field keyName=\"\(escaped(name))\" type=\"\(fieldType(type, choices: !values.isEmpty))\">\n"
                field += "            <label><language value=\"en-US\">\(escaped(name))</language></label>\n"
                if let description = property.description {
                    field +=
                        "            <description><language value=\"en-US\">\(escaped(description))</language></description>\n"
                }
                if !values.isEmpty {
                    field += "            <options>\n"
                    for value in values {
                        let text = escaped(text(of: value))
                        field +=
                            "                <option value=\"\(text)\"><language value=\"en-US\">\(text)</language></option>\n"
                    }
                    field += "            </options>\n"
                }
                field += "        </field>\n"
                fields.append(field)
            }
        }
        add(properties, prefix: key + ".")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<managedAppConfiguration>\n"
        xml += "    <version>1</version>\n"
        xml += "    <bundleId>\(escaped(bundleIdentifier))</bundleId>\n"
        if !unmanageable.isEmpty {
            xml += "    <!-- Not expressible as AppConfig keys: \(escaped(unmanageable.joined(separator: ", "))) -->\n"
        }
        xml += "    <dict>\n" + keys.joined() + "    </dict>\n"
        xml += "    <presentation defaultLocale=\"en-US\">\n" + fields.joined() + "    </presentation>\n"
        xml += "</managedAppConfiguration>\n"
        return Data(xml.utf8)
    }

    /// The AppConfig type of a form and its choices; `nil` when the format has none.
    private static func appConfigType(of node: SchemaNode) -> (String, [StoredValue])? {
        switch node {
        case .boolean: return ("boolean", [])
        case .integer: return ("integer", [])
        case .real: return ("float", [])
        case .string, .url, .uuid: return ("string", [])
        case .date: return ("date", [])
        case .choices(let raw, let values):
            guard let (type, _) = appConfigType(of: raw), !type.hasSuffix("Array") else { return nil }
            return (type, values)
        case .array(let element):
            guard let (type, values) = appConfigType(of: element), ["integer", "float", "string"].contains(type)
            else { return nil }
            return (type + "Array", values)
        default: return nil
        }
    }

    private static func fieldType(_ type: String, choices: Bool) -> String {
        if type.hasSuffix("Array") { return choices ? "multiselect" : "list" }
        if choices { return "select" }
        switch type {
        case "boolean": return "checkbox"
        case "date": return "datetime"
        default: return "input"
        }
    }

    private static func text(of value: StoredValue) -> String {
        if case .string(let string) = value { return string }
        return JSONForm.description(of: value)
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
