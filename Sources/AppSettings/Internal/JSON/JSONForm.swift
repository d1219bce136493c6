import Foundation

// The JSON form of stored settings, both ways. Writing needs no types: each stored kind has one
// JSON form. Reading does, since a JSON string may be a `String`, a `Date`, `Data`, a URL or a UUID:
// a settings class reads it by each setting's declared type (its witness's
// `storedValue(fromJSONForm:)`); the tool, which has no classes, by the kind stored for the setting
// (`storedValue(_:like:)`).

enum JSONForm {
    /// The key of a document's schema version, the one entry of a JSON document that is no setting.
    static let schemaVersionKey = "$schemaVersion"

    // MARK: Writing

    /// A stored value in the form `JSONSerialization` writes.
    static func jsonValue(_ value: StoredValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .integer(let integer): return Int(exactly: integer) ?? integer
        case .unsignedInteger(let integer): return integer
        // Written as it was read (JSONSerialization writes a decimal number's digits).
        case .numberText(let text): return NSDecimalNumber(string: text)
        // The shortest text that reads back as the same Float: 0.7, not 0.699999988079071.
        case .float(let float): return float.isFinite ? Double("\(float)") ?? Double(float) : nonFinite(Double(float))
        case .double(let double): return double.isFinite ? double : nonFinite(double)
        case .string(let string): return string
        case .data(let data): return data.base64EncodedString()
        case .date(let date): return dateText(date)
        case .url(let url): return url.absoluteString
        case .uuid(let uuid): return uuid.uuidString
        case .array(let values): return values.map(jsonValue)
        case .set(let values):
            return values.map(jsonValue).map { (text: compactText($0), value: $0) }
                .sorted { $0.text < $1.text }.map(\.value)
        case .dictionary(let values): return values.mapValues(jsonValue)
        }
    }

    private static func nonFinite(_ value: Double) -> String {
        value.isNaN ? "nan" : value < 0 ? "-inf" : "inf"
    }

    /// ISO 8601 in UTC, with as many digits of fractional seconds as it takes to read back the
    /// same `Date` (none for whole seconds, usually 3 or 6).
    static func dateText(_ date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        let wholeText = TextForms.wholeSecondText(Date(timeIntervalSinceReferenceDate: whole))
        guard interval != whole, interval.isFinite, wholeText.hasSuffix("Z") else { return wholeText }
        var candidate = wholeText
        for digits in [3, 6, 9, 12, 15, 17] {
            let fraction = String(format: "%.\(digits)f", interval - whole)
            // Rounded up to a whole second: more digits are needed.
            guard fraction.hasPrefix("0.") else { continue }
            candidate = wholeText.dropLast() + fraction.dropFirst() + "Z"
            if TextForms.date(fromText: candidate) == date { break }
        }
        return candidate
    }

    /// The compact, key-sorted JSON text of a value (fragments too).
    static func compactText(_ value: Any) -> String {
        // Used for sorting a set's elements and in messages: a value without JSON text (there is
        // none among the inspector's values) gets its description, and is kept.
        guard JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(
                withJSONObject: value,
                options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
            )
        else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Pretty-printed, key-sorted JSON text ending with a newline: the form of every document.
    static func documentData(_ object: [String: Any]) throws -> Data {
        guard JSONSerialization.isValidJSONObject(object) else {
            throw ArchiveFormatError("the values have no JSON form")
        }
        let data = try JSONSerialization.data(
            withJSONObject: object,
            options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        )
        return data + Data("\n".utf8)
    }

    // MARK: Reading

    /// A JSON document of one settings set: its entries by stored name, read as JSON gives them
    /// (numbers, strings, Booleans, null, arrays, dictionaries), and its `$schemaVersion`.
    struct Document {
        var entries: [String: StoredValue]
        var schemaVersion: Int?
    }

    /// Reads a document; throws ``AppSettingsError/malformedJSON(reason:)`` for text that is not
    /// a JSON object of settings, and ``AppSettingsError/unknownSetting(key:setting:)`` for a
    /// `$` entry other than `$schemaVersion`.
    static func document(from data: Data, key: String) throws(AppSettingsError) -> Document {
        // Refused before parsing: a document larger than this cannot hold a set its domain takes,
        // and parsing it would cost time and memory out of all proportion.
        guard data.count <= GuardedFile.maximumDocumentByteCount else {
            throw .malformedJSON(
                reason:
                    "the document is \(data.count) bytes, more than the \(GuardedFile.maximumDocumentByteCount)-byte "
                    + "limit for a document of settings")
        }
        let value: StoredValue
        do {
            value = try JSONReader.value(from: data)
        } catch {
            throw .malformedJSON(reason: "not JSON at \(error)")
        }
        guard case .dictionary(let dictionary) = value else {
            throw .malformedJSON(reason: "the document is \(description(of: value)), not a JSON object of settings")
        }
        var document = Document(entries: [:])
        for (name, value) in dictionary {
            if name == JSONForm.schemaVersionKey {
                document.schemaVersion = try schemaVersion(value)
                continue
            }
            guard !name.hasPrefix("$") else { throw .unknownSetting(key: key, setting: name) }
            document.entries[name] = value
        }
        return document
    }

    /// A `$schemaVersion`: an integer, written as JSON Schema's `integer` allows (`2` or `2.0`).
    private static func schemaVersion(_ value: StoredValue) throws(AppSettingsError) -> Int {
        guard case .integer(let integer)? = value.exactInteger, let version = Int(exactly: integer) else {
            throw .malformedJSON(reason: "$schemaVersion is \(description(of: value)), not an integer")
        }
        return version
    }

    /// A JSON value in its compact text, for messages (long ones shortened); a number read from
    /// text as it was written.
    static func description(of value: StoredValue) -> String {
        let text = writtenText(value)
        return text.count > 80 ? text.prefix(77) + "..." : text
    }

    /// The compact, key-sorted JSON text of a value read from JSON, each number as it was written
    /// (`1.7976931348623157e+308`, which no `NSDecimalNumber` holds).
    private static func writtenText(_ value: StoredValue) -> String {
        switch value {
        case .numberText(let text): text
        case .array(let values): "[" + values.map(writtenText).joined(separator: ",") + "]"
        case .dictionary(let entries):
            "{"
                + entries.sorted { $0.key < $1.key }.map { compactText($0.key) + ":" + writtenText($0.value) }
                .joined(separator: ",") + "}"
        default: compactText(jsonValue(value))
        }
    }

    // MARK: Reading by declared type

    /// The forms a setting's declared type reads JSON strings in: used by the `SettingValue`
    /// conformances. Any other value is returned as it is, for the type's own check.
    static func date(_ value: StoredValue, for type: Any.Type) throws -> StoredValue {
        guard case .string(let text) = value else { return value }
        guard let date = TextForms.date(fromText: text) else {
            throw StoredValueMismatch(
                expectedDescription: SchemaNode.date.expectedText + (TextForms.dateProblem(text) ?? ""),
                foundDescription: description(of: value))
        }
        return .date(date)
    }

    static func data(_ value: StoredValue, for type: Any.Type) throws -> StoredValue {
        guard case .string(let text) = value else { return value }
        guard let data = TextForms.data(fromBase64: text) else {
            throw StoredValueMismatch(
                expectedDescription: SchemaNode.data.expectedText, foundDescription: description(of: value))
        }
        return .data(data)
    }

    /// A number (one read from text as the `Double` nearest it); `"nan"`, `"inf"` and `"-inf"` as
    /// their numbers; a Boolean refused.
    static func realNumber(_ value: StoredValue, for type: Any.Type) throws -> StoredValue {
        if case .bool = value { throw StoredValueMismatch(expected: type, found: value) }
        if case .numberText(let text) = value, let number = Double(text) { return .double(number) }
        guard case .string(let text) = value, let number = TextForms.nonFiniteNumbers[text] else { return value }
        return .double(number)
    }

    // MARK: Reading by what is stored

    /// A value read from JSON, typed like `template`, the value stored for the same setting: how
    /// the `appsettings` tool, which has no settings classes, types what it stores. Collections
    /// type their elements like a stored element; a dictionary's entries like the stored entry of
    /// the same key. With `merging`, a dictionary keeps the stored entries it does not name.
    ///
    /// Where `nil` is stored, the value is taken as JSON gives it. A stored value does not say
    /// whether its setting is optional, nor its integer type: `strict` (`set`) refuses JSON null
    /// where a value is stored and an integer on the other side of `Int64.max` than the stored
    /// one; otherwise (`import`, a document of the set's own form) both are taken.
    static func storedValue(
        _ value: StoredValue,
        like template: StoredValue,
        merging: Bool,
        strict: Bool = false
    ) throws -> StoredValue {
        func mismatch(_ expected: String) -> StoredValueMismatch {
            StoredValueMismatch(expectedDescription: expected, foundDescription: description(of: value))
        }
        // What the stored kind accepts, in the words documents and the set's schema use
        // (`SchemaNode.expectedText`): a value it refuses is refused before any conversion.
        // A number where nothing is stored to type it by (a new entry): the number it is.
        if case .numberText = template { return value.withNumberTextRead }
        let implied = template.impliedSchemaNode(strict: strict)
        switch template {
        case .null, .array, .set, .dictionary: break
        default:
            if value != .null, let problem = implied.problem(with: value, path: "") { throw mismatch(problem.expected) }
        }
        switch (template, value) {
        case (.null, _):
            // The type behind a stored nil is unknown: taken as JSON gives it, for the app to read
            // by its declared type (a value that does not fit keeps its default there, reported).
            return value.withNumberTextRead
        case (_, .null):
            // A stored value does not say whether its setting is optional, and a non-optional one
            // would load nil as its developer default: refused when `strict` (`set`); a document
            // (`import`) may restore an export's nil over a value.
            guard !strict else { throw mismatch("\(implied.expectedText) (null only where nil is stored)") }
            return value
        case (.bool, .bool): return value
        case (.integer, .integer), (.unsignedInteger, .unsignedInteger):
            return value
        case (.integer, .unsignedInteger), (.unsignedInteger, .integer):
            // A stored integer's kind says on which side of Int64.max its value is, not its type's
            // range: when `strict`, a value stays on that side (a signed integer where one is
            // stored, none below 0 where one above Int64.max is); a document may cross it (an
            // export of a UInt64 setting).
            if strict, case .unsignedInteger = value { throw mismatch(implied.expectedText) }
            if strict, case .integer(let integer) = value, integer < 0 {
                throw mismatch(implied.expectedText)
            }
            return value
        case (.integer, .numberText), (.unsignedInteger, .numberText), (.integer, .double), (.unsignedInteger, .double):
            // Read from its digits: `5.0` and `5e0` are 5, `1.00000000000000000001` no integer.
            guard let integer = value.exactInteger else { throw mismatch(implied.expectedText) }
            return try storedValue(integer, like: template, merging: merging, strict: strict)
        case (.float, _), (.double, _):
            let number: Double
            switch try realNumber(value, for: Double.self) {
            case .double(let double): number = double
            case .float(let float): number = Double(float)
            case .integer(let integer): number = Double(integer)
            case .unsignedInteger(let integer): number = Double(integer)
            default: throw mismatch(implied.expectedText)
            }
            guard case .float = template else { return .double(number) }
            guard TextForms.isInRange(number, isFloat: true) || !number.isFinite else {
                throw mismatch(implied.expectedText)
            }
            return .float(Float(number))
        case (.string, .string): return value
        case (.data, .string): return try data(value, for: Data.self)
        case (.date, .string): return try date(value, for: Date.self)
        case (.url, .string(let text)):
            guard let url = TextForms.url(fromText: text) else { throw mismatch(implied.expectedText) }
            return .url(url)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw mismatch(implied.expectedText) }
            return .uuid(uuid)
        case (.array(let elements), .array(let values)), (.set(let elements), .array(let values)):
            let typed = try values.map {
                try storedValue($0, like: elementTemplate(for: $0, among: elements), merging: false, strict: strict)
            }
            if case .set = template { return .set(typed) }
            return .array(typed)
        case (.dictionary(let entries), .dictionary(let values)):
            var result = merging ? entries : [:]
            let storedValues = entries.values.filter { $0 != .null }
            // A key not stored yet: typed like the others when they all have one kind.
            let common = storedValues.first.flatMap { first in
                storedValues.allSatisfy { $0.kindDescription == first.kindDescription } ? first : nil
            }
            for (name, element) in values.sorted(by: { $0.key < $1.key }) {
                let elementTemplate = entries[name] ?? (element == .null ? element : common ?? element)
                result[name] = try storedValue(
                    element, like: elementTemplate, merging: merging, strict: strict)
            }
            return .dictionary(result)
        default:
            throw mismatch(implied.expectedText)
        }
    }

    /// What an element of a stored array or set is typed like: a stored element that is not
    /// `nil` (or `nil`, for a `nil` element where one is stored), or, when there is none, the
    /// element's own JSON kind.
    private static func elementTemplate(for element: StoredValue, among stored: [StoredValue]) -> StoredValue {
        if element == .null, stored.contains(.null) { return .null }
        return stored.first { $0 != .null } ?? element
    }
}
