import Foundation

@testable import AppSettings

/// Issue 48's two checks of one imported document, by the class's own description of each
/// setting (`SchemaProperty`): an import that took it stored exactly the values written (the
/// export after it holds each one: an integer by its digits, a real number as the number nearest
/// it, a date as the moment, a set as its members), and a refusal named a value as it was written.
enum ExactDocumentCheck {
    /// How the export after an import differs from the document: one line per setting whose
    /// value changed; empty when each holds what was written. Settings checked by `validate:` are
    /// left out (the schema says the app may change them); `unordered` names the sets.
    static func changes(
        document: StoredValue,
        export: StoredValue,
        properties: [SchemaProperty],
        unordered: Set<String> = []
    ) -> [String] {
        guard case .dictionary(let written) = document, case .dictionary(let stored) = export else {
            return ["not two objects"]
        }
        var changes: [String] = []
        for property in properties where !property.isCheckedByApp {
            guard let value = written[property.name] else { continue }
            if let change = change(
                value, stored[property.name], node: property.node, path: property.name, unordered: unordered)
            {
                changes.append(change)
            }
        }
        return changes
    }

    /// Why a refusal does not name the setting and its value as written in `document`; `nil`
    /// when it does.
    static func namingProblem(of error: any Error, document: StoredValue) -> String? {
        switch error as? AppSettingsError {
        case .invalidJSONValue(let setting, _, let found)?:
            guard let value = value(at: setting, in: document) else { return "\(setting) is not in the document" }
            let written = JSONForm.description(of: value)
            return found == written ? nil : "\(setting): named \(found), written \(written)"
        case .unknownSetting(_, let setting)?:
            return value(at: setting, in: document) == nil ? "\(setting) is not in the document" : nil
        case .malformedJSON(let reason)?:
            // A document that is no object, or a `$schemaVersion` that is no integer: named.
            guard case .dictionary(let entries) = document else {
                return reason.contains(JSONForm.description(of: document)) ? nil : "malformed: \(reason)"
            }
            guard let version = entries[JSONForm.schemaVersionKey], reason.contains(JSONForm.description(of: version))
            else { return "malformed: \(reason)" }
            return nil
        case .migrationFailed?: return nil
        default: return "not a refusal naming a value: \(error)"
        }
    }

    // MARK: Values

    private static func change(
        _ written: StoredValue,
        _ stored: StoredValue?,
        node: SchemaNode,
        path: String,
        unordered: Set<String>
    ) -> String? {
        let differs =
            "\(path): wrote \(JSONForm.description(of: written)), stored "
            + (stored.map(JSONForm.description(of:)) ?? "nothing")
        guard let stored else { return differs }
        func check(_ isSame: Bool) -> String? { isSame ? nil : differs }
        switch node {
        case .optional(let wrapped):
            if written == .null || stored == .null { return check(written == stored) }
            return change(written, stored, node: wrapped, path: path, unordered: unordered)
        case .integer: return check(written.exactInteger != nil && written.exactInteger == stored.exactInteger)
        case .real(let isFloat):
            if written.text != nil || stored.text != nil { return check(written == stored) }
            guard let left = numberText(written), let right = numberText(stored) else { return differs }
            return check(isFloat ? Float(left) == Float(right) : Double(left) == Double(right))
        case .date:
            return check(
                written.text.flatMap(TextForms.date(fromText:)) == stored.text.flatMap(TextForms.date(fromText:)))
        case .uuid:
            return check(written.text.flatMap(UUID.init(uuidString:)) == stored.text.flatMap(UUID.init(uuidString:)))
        case .choices: return check(written.isSameJSONValue(as: stored))
        case .array(let element):
            guard case .array(let left) = written, case .array(let right) = stored else { return differs }
            if unordered.contains(path) {
                // A set: the members written, each once.
                let each = { (values: [StoredValue], others: [StoredValue]) in
                    values.allSatisfy { value in
                        others.contains { change(value, $0, node: element, path: path, unordered: []) == nil }
                    }
                }
                return check(each(left, right) && each(right, left))
            }
            guard left.count == right.count else { return differs }
            for (index, pair) in zip(left, right).enumerated() {
                if let change = change(
                    pair.0, pair.1, node: element, path: "\(path)[\(index)]", unordered: unordered)
                {
                    return change
                }
            }
            return nil
        case .dictionary(let element):
            guard case .dictionary(let left) = written, case .dictionary(let right) = stored,
                Set(left.keys) == Set(right.keys)
            else { return differs }
            return left.keys.sorted().lazy.compactMap {
                change(left[$0]!, right[$0], node: element, path: "\(path).\($0)", unordered: unordered)
            }.first
        case .object(let properties):
            guard case .dictionary(let left) = written, case .dictionary(let right) = stored else { return differs }
            return properties.lazy.compactMap { property in
                left[property.name].flatMap {
                    change(
                        $0, right[property.name], node: property.node, path: "\(path).\(property.name)",
                        unordered: unordered)
                }
            }.first
        case .members(let members):
            // The whole value: every member written is stored, and nothing else.
            guard case .dictionary(let left) = written, case .dictionary(let right) = stored,
                Set(right.keys).isSubset(of: left.keys)
            else { return differs }
            return members.lazy.compactMap { member in
                // A member read only when present: null and nothing are the same nil.
                left[member.name].flatMap {
                    $0 == .null && !member.isRequired && right[member.name] == nil
                        ? nil
                        : change(
                            $0, right[member.name], node: member.node, path: "\(path).\(member.name)",
                            unordered: unordered)
                }
            }.first
        default:
            return check(written.withNumberTextRead == stored.withNumberTextRead)
        }
    }

    /// A number as its text: what was written, or the digits of an integer.
    private static func numberText(_ value: StoredValue) -> String? {
        switch value {
        case .numberText(let text): text
        case .integer(let integer): "\(integer)"
        case .unsignedInteger(let integer): "\(integer)"
        default: nil
        }
    }

    /// The value at a setting's path in a document: names and `[index]`es, dotted.
    private static func value(at path: String, in document: StoredValue) -> StoredValue? {
        var current: StoredValue? = document
        var scanner = Substring(path)
        while !scanner.isEmpty, let value = current {
            if scanner.first == "[" {
                guard let close = scanner.firstIndex(of: "]"),
                    let index = Int(scanner[scanner.index(after: scanner.startIndex)..<close]),
                    case .array(let elements) = value, elements.indices.contains(index)
                else { return nil }
                current = elements[index]
                scanner = scanner[scanner.index(after: close)...]
            } else {
                if scanner.first == "." { scanner.removeFirst() }
                let end = scanner.firstIndex { $0 == "." || $0 == "[" } ?? scanner.endIndex
                guard case .dictionary(let entries) = value else { return nil }
                current = entries[String(scanner[..<end])]
                scanner = scanner[end...]
            }
        }
        return current
    }
}
