import Foundation

/// A JSON value as generated, written as exact text (an integer beyond 64 bits, `1e400`, `1.00000001`
/// stay as written, which no `Double` or `JSONSerialization` round trip would keep).
indirect enum GeneratedJSON: CustomStringConvertible {
    /// A number, or any JSON text taken whole (an export's value the schema does not describe).
    case text(String)
    case string(String)
    case array([GeneratedJSON])
    case object([(String, GeneratedJSON)])

    var description: String {
        switch self {
        case .text(let text): return text
        case .string(let string): return Self.quoted(string)
        case .array(let elements): return "[" + elements.map(\.description).joined(separator: ",") + "]"
        case .object(let entries):
            return "{" + entries.map { Self.quoted($0.0) + ":" + $0.1.description }.joined(separator: ",") + "}"
        }
    }

    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// Generates documents from a JSON Schema as `jsonSchema()` writes them (read back as JSON, not
/// from the library's own description), and mutations of them: values at and beyond every bound,
/// strings near each pattern, other kinds, unknown names. Which are valid is for the validators to
/// say; the generator only aims near the edges. A `{}` schema (a `Codable` value the schema cannot
/// describe) gets the export's value and is never mutated.
struct SchemaDocumentGenerator {
    var random: SeededGenerator
    let schema: [String: Any]
    let example: [String: Any]
    /// One property in this many is named in an object (a `Codable` value's required members but
    /// now and then): a class of many settings takes more, so that some documents are valid.
    var oneIn = 2

    mutating func document() -> GeneratedJSON {
        var value = self.value(for: schema, example: example)
        if Int.random(in: 0..<3, using: &random) != 0 {
            for _ in 0..<Int.random(in: 1...2, using: &random) { value = mutated(value, schema: schema) }
        }
        return value
    }

    // MARK: Values of a schema

    private mutating func value(for schema: [String: Any], example: Any?) -> GeneratedJSON {
        if Self.isUndescribed(schema) { return Self.fragment(example ?? NSNull()) }
        if let choices = schema["anyOf"] as? [[String: Any]] {
            let branch = choices[Int.random(in: 0..<choices.count, using: &random)]
            return value(for: branch, example: example)
        }
        if let members = schema["enum"] as? [Any], !members.isEmpty {
            return Self.fragment(members[Int.random(in: 0..<members.count, using: &random)])
        }
        switch schema["type"] as? String {
        case "boolean": return .text(Bool.random(using: &random) ? "true" : "false")
        case "null": return .text("null")
        case "integer": return integer(minimum: schema["minimum"], maximum: schema["maximum"])
        case "number": return number(minimum: schema["minimum"], maximum: schema["maximum"])
        case "string": return .string(string(for: schema))
        case "array":
            let items = schema["items"] as? [String: Any] ?? [:]
            let examples = example as? [Any] ?? []
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { index in
                    value(for: items, example: examples.isEmpty ? nil : examples[index % examples.count])
                })
        case "object":
            let examples = example as? [String: Any] ?? [:]
            if let properties = schema["properties"] as? [String: [String: Any]] {
                var entries: [(String, GeneratedJSON)] = []
                // A `Codable` value's required members: all of them, mostly; some missing now and then.
                let required = Set(schema["required"] as? [String] ?? [])
                let keepsRequired = Int.random(in: 0..<5, using: &random) != 0
                for name in properties.keys.sorted()
                where (keepsRequired && required.contains(name)) || Int.random(in: 0..<oneIn, using: &random) == 0 {
                    entries.append((name, value(for: properties[name]!, example: examples[name])))
                }
                return .object(entries)
            }
            let element = schema["additionalProperties"] as? [String: Any] ?? [:]
            return .object(
                (0..<Int.random(in: 0...3, using: &random)).map { index in
                    ("k\(index)", value(for: element, example: examples.values.first))
                })
        default: return .text("null")
        }
    }

    private mutating func integer(minimum: Any?, maximum: Any?) -> GeneratedJSON {
        let low = Self.int128(minimum) ?? -1_000_000
        let high = Self.int128(maximum) ?? 1_000_000
        let candidates: [Int128] = [low, high, 0, 1, -1, low + 1, high - 1]
        let value: Int128 =
            Bool.random(using: &random)
            ? candidates[Int.random(in: 0..<candidates.count, using: &random)]
            : Int128(
                Int64.random(
                    in: Int64(clamping: max(low, -1 << 40))...Int64(clamping: min(high, 1 << 40)), using: &random))
        let clamped = min(max(value, low), high)
        return .text(Int.random(in: 0..<3, using: &random) == 0 ? writtenOtherwise(clamped) : "\(clamped)")
    }

    /// An integer written in one of the forms whose value is that integer: `5.0`, `5e0`, `50e-1`,
    /// `5.000`, and `1.234567890123456789e18` (a mantissa and an exponent), which only a reader of
    /// the digits reads exactly.
    private mutating func writtenOtherwise(_ value: Int128) -> String {
        if value == 0 { return ["0.0", "0e0", "-0.0", "0.000E+5"][Int.random(in: 0..<4, using: &random)] }
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        let mantissa = digits.count > 1 ? "\(digits.prefix(1)).\(digits.dropFirst())" : digits
        return [
            "\(value).0", "\(value)e0", "\(value)0e-1", "\(value).000", "\(sign)\(mantissa)e\(digits.count - 1)",
            "\(sign)\(mantissa)E+\(digits.count - 1)",
        ][Int.random(in: 0..<6, using: &random)]
    }

    /// A number a `Double` cannot tell from `value`, written with more digits: just beyond it
    /// (`1.7976931348623157000000000001e+308`), `value` itself with more zeros, or just inside it
    /// (the next `Double` toward zero, with nines after it).
    private mutating func beyondDoublePrecision(_ value: Double) -> String {
        func digits(_ number: Double, _ extra: String) -> String {
            var text = "\(number)"
            let exponent = text.firstIndex { $0 == "e" || $0 == "E" } ?? text.endIndex
            if !text[..<exponent].contains(".") { text.insert(contentsOf: ".0", at: exponent) }
            text.insert(contentsOf: extra, at: text.firstIndex { $0 == "e" || $0 == "E" } ?? text.endIndex)
            return text
        }
        let inward = value > 0 ? value.nextDown : value < 0 ? value.nextUp : value
        return [digits(value, "0000000000001"), digits(value, "000000000000"), digits(inward, "99999999999")][
            Int.random(in: 0..<3, using: &random)]
    }

    private mutating func number(minimum: Any?, maximum: Any?) -> GeneratedJSON {
        let low = max((minimum as? NSNumber)?.doubleValue ?? -1e300, -1e300)
        let high = min((maximum as? NSNumber)?.doubleValue ?? 1e300, 1e300)
        switch Int.random(in: 0..<7, using: &random) {
        case 0: return .text("\((minimum as? NSNumber)?.doubleValue ?? low)")
        case 1: return .text("\((maximum as? NSNumber)?.doubleValue ?? high)")
        case 5: return .text(beyondDoublePrecision(Bool.random(using: &random) ? low : high))
        case 6: return .text(beyondDoublePrecision(Double.random(in: max(low, -10)...min(high, 10), using: &random)))
        case 2: return .text("\(Double.random(in: max(low, -10)...min(high, 10), using: &random))")
        case 3: return .text("\(Int.random(in: Int(max(low, -100))...Int(min(high, 100)), using: &random))")
        default: return .text("\(Double.random(in: low / 2...high / 2, using: &random))")
        }
    }

    /// A string for a string schema: by its pattern's kind when it has one, sometimes of another
    /// kind, so that each pattern meets the others' strings too.
    private mutating func string(for schema: [String: Any]) -> String {
        var kind = "plain"
        if schema["format"] as? String == "date-time" { kind = "date" }
        if schema["format"] as? String == "uuid" { kind = "uuid" }
        if schema["contentEncoding"] as? String == "base64" { kind = "base64" }
        if schema["format"] == nil, schema["contentEncoding"] == nil, schema["pattern"] != nil { kind = "url" }
        if Int.random(in: 0..<6, using: &random) == 0 {
            kind = ["plain", "date", "uuid", "base64", "url"][Int.random(in: 0..<5, using: &random)]
        }
        switch kind {
        case "date": return date(nearMiss: Int.random(in: 0..<4, using: &random) == 0)
        case "uuid":
            let uuid = UUID().uuidString
            return [uuid, uuid.lowercased(), String(uuid.dropLast()), uuid.replacingOccurrences(of: "-", with: "")][
                Int.random(in: 0..<4, using: &random)]
        case "base64":
            let bytes = (0..<Int.random(in: 0...7, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
            }
            let text = Data(bytes).base64EncodedString()
            return [text, text, text + "=", text + "==", text + "A", String(text.dropLast()), "AB==", "AAB=", "*"][
                Int.random(in: 0..<9, using: &random)]
        case "url":
            return [
                "https://example.com/a?b=c#d", "file:///tmp/a%20b", "mailto:a@b.c", "", "https://exa mple.com",
                "relative/path", "https://example.com/%zz", "a#b#c", "http://[::1]:80/", "https://é.com", "#top",
            ][Int.random(in: 0..<11, using: &random)]
        default:
            return ["", "a", "light", "dark", "Ünïcödé", "line\nbreak", "tab\t\"quote\"", "🙂", "nan", "inf"][
                Int.random(in: 0..<10, using: &random)]
        }
    }

    /// An ISO 8601 date-time, or, for a near miss, one off in one part (February 30, 24:00,
    /// second 60, year 0 or 10000, a date alone, an offset beyond 23:59, lowercase letters).
    private mutating func date(nearMiss: Bool) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var year = Int.random(in: 0...9999, using: &random)
        if Bool.random(using: &random) { year = Int.random(in: 1990...2040, using: &random) }
        var month = Int.random(in: 1...12, using: &random)
        var day = Int.random(in: 1...28, using: &random)
        var hour = Int.random(in: 0...23, using: &random)
        var second = Int.random(in: 0...59, using: &random)
        var separator = "T"
        var zone = ["Z", "+01:00", "-05:30", "+0200", "+03", "+23:59", "-23:59", "z"][
            Int.random(in: 0..<8, using: &random)]
        var fraction = ["", "", ".5", ".123", ",25", ".123456789012"][Int.random(in: 0..<6, using: &random)]
        var dateOnly = false
        if nearMiss {
            switch Int.random(in: 0..<12, using: &random) {
            case 0: (month, day) = (2, 30)
            case 1: (month, day, year) = (2, 29, [1900, 2023, 2100][Int.random(in: 0..<3, using: &random)])
            case 2: (month, day, year) = (2, 29, [2000, 2024, 1600][Int.random(in: 0..<3, using: &random)])
            case 3: (month, day) = (4, 31)
            case 4: hour = 24
            case 5: second = 60
            case 6: year = [0, 10000, -1][Int.random(in: 0..<3, using: &random)]
            case 7: dateOnly = true
            case 8: zone = ["+18:00", "+24:00", "-99:00", "+01:60", ""][Int.random(in: 0..<5, using: &random)]
            case 9: separator = ["t", " ", ""][Int.random(in: 0..<3, using: &random)]
            case 10: fraction = ["", ".", ".x"][Int.random(in: 0..<3, using: &random)]
            default: month = 13
            }
        }
        let yearText = year < 1000 ? String(repeating: "0", count: 4 - "\(year)".count) + "\(year)" : "\(year)"
        let dateText = "\(yearText)-\(two(month))-\(two(day))"
        if dateOnly { return dateText }
        return "\(dateText)\(separator)\(two(hour)):\(two(Int.random(in: 0...59, using: &random))):\(two(second))"
            + "\(fraction)\(zone)"
    }

    // MARK: Mutations

    /// `value` with one part replaced by a value near or beyond its schema's edge, or with a name
    /// added that no schema has. `{}` parts (not described) are left alone.
    private mutating func mutated(_ value: GeneratedJSON, schema: [String: Any]) -> GeneratedJSON {
        if Self.isUndescribed(schema) { return value }
        let branches = (schema["anyOf"] as? [[String: Any]])?.filter { $0["type"] as? String != "null" }
        let inner = branches?.first ?? schema
        switch value {
        case .object(var entries) where Int.random(in: 0..<3, using: &random) != 0 && !entries.isEmpty:
            let index = Int.random(in: 0..<entries.count, using: &random)
            let properties = inner["properties"] as? [String: [String: Any]]
            let child = properties?[entries[index].0] ?? inner["additionalProperties"] as? [String: Any] ?? [:]
            entries[index].1 = mutated(entries[index].1, schema: child)
            return .object(entries)
        // A name given twice is not a document (JSON leaves its meaning open; the import refuses it).
        case .object(var entries)
        where !entries.contains(where: { $0.0 == "unknownSetting" }) && Int.random(in: 0..<2, using: &random) == 0:
            entries.append(("unknownSetting", .text("1")))
            return .object(entries)
        case .array(var elements) where !elements.isEmpty && Bool.random(using: &random):
            let index = Int.random(in: 0..<elements.count, using: &random)
            elements[index] = mutated(elements[index], schema: inner["items"] as? [String: Any] ?? [:])
            return .array(elements)
        default:
            return replacement(for: inner)
        }
    }

    /// A value aimed at the edge of `schema` (one part of a document).
    private mutating func replacement(for schema: [String: Any]) -> GeneratedJSON {
        var candidates: [String] = [
            "null", "true", "0", "-1", "1.5", "\"x\"", "\"\"", "[]", "{}", "1e400", "-1e400", "0.0", "1e2", "-0",
            "9223372036854775808", "-9223372036854775809", "-9223372036854775900", "18446744073709551616",
            "3.4028235e38", "3.4028236e38", "1.7976931348623157e308", "\"nan\"", "\"inf\"", "\"-inf\"", "\"NaN\"",
            "\"Infinity\"", "5.0", "5e0", "-5E-0", "1.234567890123456789e18", "1e-400",
        ]
        if schema["type"] as? String == "integer", let low = Self.int128(schema["minimum"]),
            let high = Self.int128(schema["maximum"])
        {
            // At and beyond each bound, in each form; fractions a `Double` rounds to an integer.
            for bound in [low - 1, low, high, high + 1] {
                candidates += ["\(bound)", writtenOtherwise(bound), writtenOtherwise(bound)]
            }
            candidates += [
                "\(high).0000000000000000001", "\(low).5", "\(high)e-1", "\(low + 1).99999999999999999999",
                "9007199254740993.0", "1.00000000000000000001", "\(high)e1",
            ]
        } else if let low = (schema["minimum"] as? NSNumber)?.doubleValue,
            let high = (schema["maximum"] as? NSNumber)?.doubleValue
        {
            candidates += [low.nextDown, high.nextUp, high, high + 1e-8, low - 1e-8, high * 1.0000001].filter(
                \.isFinite
            )
            .map { "\($0)" }
            candidates += [beyondDoublePrecision(low), beyondDoublePrecision(high), "-0.0"]
        }
        if schema["type"] as? String == "string" || schema["pattern"] != nil || schema["enum"] != nil {
            candidates.append(GeneratedJSON.quoted(string(for: schema)))
            candidates.append(GeneratedJSON.quoted(date(nearMiss: true)))
        }
        if let members = schema["enum"] as? [Any] {
            candidates += members.map { Self.fragment($0).description } + ["\"purple\"", "3"]
        }
        return .text(candidates[Int.random(in: 0..<candidates.count, using: &random)])
    }

    // MARK: Helpers

    /// A schema that says nothing of its value (`{}`, perhaps with a `default` or a
    /// `description`): a `Codable` value.
    static func isUndescribed(_ schema: [String: Any]) -> Bool {
        schema["type"] == nil && schema["anyOf"] == nil && schema["enum"] == nil
    }

    /// A value `JSONSerialization` read, written back as compact JSON text.
    static func fragment(_ value: Any) -> GeneratedJSON {
        let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        return .text(data.map { String(decoding: $0, as: UTF8.self) } ?? "null")
    }

    /// An integer bound of a schema, exactly.
    static func int128(_ bound: Any?) -> Int128? {
        guard let number = bound as? NSNumber else { return nil }
        return Int128(number.stringValue)
    }
}
