import Foundation

/// Reading the text of an override.
enum OverrideText {
    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A mismatch that quotes the text.
    static func mismatch(_ type: Any.Type, _ text: String, _ detail: String? = nil) -> StoredValueMismatch {
        let quoted = "'\(text)'"
        return StoredValueMismatch(expected: type, foundDescription: detail.map { "\(quoted) (\($0))" } ?? quoted)
    }

    /// The structure `text` holds as a property list (XML, or the old-style text the argument
    /// domain reads: `(a, b)`, `{key = value;}`, `<0fbd77>`) or as JSON (its numbers as written:
    /// `StoredValue.numberText`); `nil` when it holds none (plain text is not a structure).
    static func tree(_ text: String) -> StoredValue? {
        let data = Data(text.utf8)
        if let propertyList = try? PropertyListSerialization.propertyList(from: data, format: nil),
            !(propertyList is String), let tree = storedValue(ofParsed: propertyList)
        {
            return tree
        }
        // Numbers read exactly, as a document's are (`JSONReader`).
        guard let tree = try? JSONReader.value(from: data), tree.text == nil else { return nil }
        return tree
    }

    /// A parsed property list or JSON value as a stored value; old-style dictionaries come with
    /// `AnyHashable` keys, which must all be strings.
    static func storedValue(ofParsed value: Any) -> StoredValue? {
        if let dictionary = value as? [AnyHashable: Any], !(value is [String: Any]) {
            var entries: [String: StoredValue] = [:]
            for (key, element) in dictionary {
                guard let key = key.base as? String, let stored = storedValue(ofParsed: element) else { return nil }
                entries[key] = stored
            }
            return .dictionary(entries)
        }
        if let array = value as? [Any] {
            var elements: [StoredValue] = []
            for element in array {
                guard let stored = storedValue(ofParsed: element) else { return nil }
                elements.append(stored)
            }
            return .array(elements)
        }
        if let dictionary = value as? [String: Any] {
            var entries: [String: StoredValue] = [:]
            for (key, element) in dictionary {
                guard let stored = storedValue(ofParsed: element) else { return nil }
                entries[key] = stored
            }
            return .dictionary(entries)
        }
        return StoredValue(propertyListValue: value)
    }

    /// A collection's stored form: itself, or the structure its text holds.
    static func collection(_ stored: StoredValue, of type: Any.Type) throws -> StoredValue {
        guard case .string(let text) = stored else { return stored }
        guard let tree = tree(text) else {
            throw mismatch(type, text, "expected property-list text such as (a, b) or {key = value;}, or JSON")
        }
        return tree
    }

    /// `tree` with each string that reads as a number or a Boolean replaced by it.
    static func scalars(in tree: StoredValue) -> StoredValue {
        switch tree {
        case .string(let text):
            let trimmed = trimmed(text)
            // Read as a document's numbers are: an integer by its digits, any other number as written.
            if let integer = TextForms.integer(fromNumberText: trimmed) { return integer }
            if TextForms.realNumber(fromText: trimmed)?.isFinite == true { return .numberText(trimmed) }
            switch trimmed.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            default: return tree
            }
        case .array(let elements): return .array(elements.map(scalars(in:)))
        case .set(let elements): return .set(elements.map(scalars(in:)))
        case .dictionary(let entries): return .dictionary(entries.mapValues(scalars(in:)))
        default: return tree
        }
    }

}
