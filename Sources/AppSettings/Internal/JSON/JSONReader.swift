import Foundation

// JSON text (RFC 8259) read into stored values, for documents and the tool's values. The
// library's own reader, not `JSONSerialization`, for three things a document needs:
// - numbers read exactly: an integer is an `Int64` or a `UInt64` when it fits one, any other
//   number is kept as written (`StoredValue.numberText`), never rounded through `Double`
//   (JSONSerialization gives -9223372036854775900 as a decimal that rounds to `Int64.min`, and
//   `1234567890123456789.0` as a `Double` 21 away from it); a number beyond `Double`'s range
//   (`1e400`) is refused, not made infinite;
// - an error that names the line and column where the text stops being JSON;
// - a name given twice in one object refused, rather than the last one silently winning.

/// A place in JSON text that is not JSON, and why.
struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var column: Int
    var reason: String

    var description: String { "line \(line), column \(column): \(reason)" }
}

/// Reads one JSON value (any kind: a document is checked to be an object by its caller).
struct JSONReader {
    /// How deep arrays and objects may nest: far beyond any settings document, and short of the
    /// stack.
    static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0

    private init(_ data: Data) { bytes = Array(data) }

    /// The value `data` holds, with nothing but white space around it.
    static func value(from data: Data) throws(JSONSyntaxError) -> StoredValue {
        var reader = JSONReader(data)
        reader.skipWhiteSpace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhiteSpace()
        guard reader.index == reader.bytes.count else { throw reader.error("text after the JSON value") }
        return value
    }

    // MARK: Values

    private mutating func readValue(depth: Int) throws(JSONSyntaxError) -> StoredValue {
        guard index < bytes.count else { throw error("the text ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
            return try readObject(depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
            return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): return try readWord("true", .bool(true))
        case UInt8(ascii: "f"): return try readWord("false", .bool(false))
        case UInt8(ascii: "n"): return try readWord("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("expected a value")
        }
    }

    private mutating func readObject(depth: Int) throws(JSONSyntaxError) -> StoredValue {
        index += 1
        var entries: [String: StoredValue] = [:]
        skipWhiteSpace()
        if skip("}") { return .dictionary(entries) }
        while true {
            skipWhiteSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a name in quotes")
            }
            let nameStart = index
            let name = try readString()
            guard entries[name] == nil else {
                index = nameStart
                throw error("the name \"\(name)\" appears twice in one object")
            }
            skipWhiteSpace()
            guard skip(":") else { throw error("expected ':' after a name") }
            skipWhiteSpace()
            entries[name] = try readValue(depth: depth)
            skipWhiteSpace()
            if skip("}") { return .dictionary(entries) }
            guard skip(",") else { throw error("expected ',' or '}'") }
        }
    }

    private mutating func readArray(depth: Int) throws(JSONSyntaxError) -> StoredValue {
        index += 1
        var elements: [StoredValue] = []
        skipWhiteSpace()
        if skip("]") { return .array(elements) }
        while true {
            skipWhiteSpace()
            elements.append(try readValue(depth: depth))
            skipWhiteSpace()
            if skip("]") { return .array(elements) }
            guard skip(",") else { throw error("expected ',' or ']'") }
        }
    }

    private mutating func readWord(_ word: String, _ value: StoredValue) throws(JSONSyntaxError) -> StoredValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected a value")
        }
        index += expected.count
        return value
    }

    /// An integer written as one that fits `Int64` or `UInt64` as one; any other number as its
    /// text (`numberText`: a setting reads its value exactly, a refusal shows it as written).
    private mutating func readNumber() throws(JSONSyntaxError) -> StoredValue {
        let start = index
        _ = skip("-")
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number does not begin with 0") }
        } else {
            skipDigits()
        }
        var isInteger = true
        if skip(".") {
            isInteger = false
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if skip("e") || skip("E") {
            isInteger = false
            _ = skip("+") || skip("-")
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // `-0` is kept as written: a real number's negative zero.
        if isInteger, text != "-0" {
            if let integer = Int64(text) { return .integer(integer) }
            if let integer = UInt64(text) { return .unsignedInteger(integer) }
        }
        guard Double(text)?.isFinite == true else {
            index = start
            throw error("the number \(text) is beyond the range of Double")
        }
        return .numberText(text)
    }

    private mutating func readString() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ reader: JSONReader, upTo end: Int) throws(JSONSyntaxError) {
            guard let run = String(validating: reader.bytes[runStart..<end], as: UTF8.self) else {
                throw reader.error("a string that is not UTF-8")
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw error("the text ends inside a string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush(self, upTo: index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character inside a string (write it as an escape)") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            try flush(self, upTo: index)
            index += 1
            guard index < bytes.count else { throw error("the text ends inside a string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try readUnicodeEscape())
            default:
                index -= 2
                throw error("an unknown escape in a string")
            }
            runStart = index
        }
    }

    /// The scalar of `\uXXXX` (the `\u` read), a surrogate pair taken whole.
    private mutating func readUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try readHexQuad()
        if (0xD800..<0xDC00).contains(first) {
            guard skip("\\"), skip("u") else { throw error("a lone surrogate in a \\u escape") }
            let second = try readHexQuad()
            guard (0xDC00..<0xE000).contains(second) else { throw error("a lone surrogate in a \\u escape") }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw error("an invalid \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("a lone surrogate in a \\u escape") }
        return scalar
    }

    private mutating func readHexQuad() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
            bytes[index..<index + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw error("expected four hexadecimal digits after \\u") }
        index += 4
        return value
    }

    // MARK: Characters

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func skip(_ mark: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: mark) else { return false }
        index += 1
        return true
    }

    private mutating func skipWhiteSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// An error at the current place: its line, and its column in characters, both from 1.
    private func error(_ reason: String) -> JSONSyntaxError {
        let end = min(index, bytes.count)
        let lineStart = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let line = bytes[..<end].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }
}
