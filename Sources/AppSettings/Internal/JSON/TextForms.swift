import Foundation

// What each text form a setting's value may take accepts, in one place: ISO 8601 dates, base64,
// URLs, and the bounds of the real numbers. Documents (`update(fromJSON:)`), overrides, managed
// configuration, the tool's checks (`SchemaNode.problem(with:path:)`) and the JSON Schema
// (`JSONSchema`, whose patterns are written here beside the readers they describe) all use these,
// so a value one of them accepts the others accept, and none is changed on the way: a text that
// names no value (February 30, 24:00, base64 with extra padding) is refused, never rounded to one.

enum TextForms {
    // MARK: Dates

    /// ISO 8601 date and time with a time zone, as RFC 3339 writes it:
    /// `2026-11-30T10:00:00Z`, `2026-11-30T10:00:00.25+01:00`. The year 0000 to 9999 (the
    /// proleptic Gregorian calendar, as ISO 8601 and RFC 3339 count: `Date.distantPast` is
    /// `0000-12-30T00:00:00Z`), a day the month has, hours 00 to 23, minutes and seconds
    /// 00 to 59 (no leap second: `Date` has none), any number of digits of fractional seconds
    /// after `.` or `,`; `T` and `Z` in capitals (as every export writes them); an offset from
    /// `-23:59` to `+23:59`
    /// (`+01:00`, `+0100` or `+01`). A date alone (`2026-11-30`) is refused: it names no time
    /// zone, and midnight UTC is a guess.
    static let datePattern: String = {
        let year = "[0-9]{4}"
        let leapYear = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|(00|0[48]|[2468][048]|[13579][26])00)"
        let day =
            "(\(year)-(0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|\(year)-(0[469]|11)-(0[1-9]|[12][0-9]|30)"
            + "|\(year)-02-(0[1-9]|1[0-9]|2[0-8])|\(leapYear)-02-29)"
        let time = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.,][0-9]+)?"
        let zone = "(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)"
        return "^\(day)T\(time)\(zone)$"
    }()

    /// The date `text` names, read by `datePattern`'s rules; `nil` for any other text.
    static func date(fromText text: String) -> Date? {
        try? readDate(text)
    }

    /// Why `text` names no date, in words that follow "expected an ISO 8601 date and time with a
    /// time zone" (`"; 2020-02-30 is no day of the calendar"`); `nil` when it names one.
    static func dateProblem(_ text: String) -> String? {
        do {
            _ = try readDate(text)
            return nil
        } catch {
            return error.reason.map { "; \($0)" } ?? ""
        }
    }

    /// Why a text that has the shape of a date is none; `reason` is `nil` for a text of another shape.
    struct DateTextProblem: Error {
        var reason: String?
    }

    /// The date `text` names, read by `datePattern`'s rules.
    private static func readDate(_ text: String) throws(DateTextProblem) -> Date {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"), let month = scanner.number(digits: 2),
            scanner.skip("-"), let day = scanner.number(digits: 2)
        else { throw DateTextProblem() }
        guard scanner.skip("T") else {
            throw DateTextProblem(reason: scanner.isAtEnd ? "a date alone names no time and no time zone" : nil)
        }
        guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
            scanner.skip(":"), let second = scanner.number(digits: 2)
        else { throw DateTextProblem() }
        let dayText = text.prefix(10)
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            throw DateTextProblem(reason: "\(dayText) is no day of the calendar")
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            throw DateTextProblem(reason: "hours go from 00 to 23, minutes and seconds from 00 to 59")
        }
        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            let digits = scanner.digits()
            guard !digits.isEmpty, let value = Double("0." + digits) else { throw DateTextProblem() }
            fraction = value
        }
        var offset = 0
        if scanner.skip("Z") {
            offset = 0
        } else if let sign = scanner.sign() {
            let zoneProblem = DateTextProblem(reason: "a time zone's offset goes from -23:59 to +23:59")
            guard let offsetHours = scanner.number(digits: 2), (0...23).contains(offsetHours) else { throw zoneProblem }
            var offsetMinutes = 0
            if !scanner.isAtEnd {
                _ = scanner.skip(":")
                guard let minutes = scanner.number(digits: 2), (0...59).contains(minutes) else { throw zoneProblem }
                offsetMinutes = minutes
            }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            throw DateTextProblem(reason: scanner.isAtEnd ? "it names no time zone (Z or an offset)" : nil)
        }
        guard scanner.isAtEnd else { throw DateTextProblem() }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        let whole = Double(seconds) - Date.timeIntervalBetween1970AndReferenceDate
        return Date(timeIntervalSinceReferenceDate: whole + fraction)
    }

    /// A date's ISO 8601 text in UTC to the whole second (rounded down), in the proleptic
    /// Gregorian calendar `date(fromText:)` reads (Foundation's calendars switch to the Julian
    /// calendar before October 1582). A year outside 0...9999 is written as it is, with its sign
    /// and more digits, a text `date(fromText:)` refuses: an export checks its values against its
    /// schema and names such a date.
    static func wholeSecondText(_ date: Date) -> String {
        let interval = (date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate)
            .rounded(.down)
        guard interval.isFinite, abs(interval) < 1e15 else { return "\(date.timeIntervalSinceReferenceDate)" }
        let seconds = Int(interval)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(secondOfDay / 3600, 2)):"
            + "\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))Z"
    }

    /// The date of the proleptic Gregorian calendar `days` after 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    // MARK: Base64

    /// Base64 in its canonical form (RFC 4648): groups of four, padded with one or two `=`, and
    /// the unused bits of the last group zero, so that a value reads back as the text it came from.
    static let base64Pattern =
        "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$"

    /// The bytes canonical base64 text holds; `nil` for any other text.
    static func data(fromBase64 text: String) -> Data? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2, bytes.dropLast(padding).allSatisfy({ alphabet.contains($0) }) else { return nil }
        if padding == 2, !"AQgw".utf8.contains(bytes[bytes.count - 3]) { return nil }
        if padding == 1, !"AEIMQUYcgkosw048".utf8.contains(bytes[bytes.count - 2]) { return nil }
        return Data(base64Encoded: text)
    }

    // MARK: URLs

    /// A URL: one or more of the characters RFC 3986 allows in a URI reference (a `%` only
    /// before two hexadecimal digits, at most one `#`), which `URL(string:)` reads as the same
    /// text: a `:` in the first segment ends a scheme (a letter, then letters, digits, `+`, `-`
    /// or `.`). No space and no empty string: Foundation would percent-encode the one, and has no
    /// URL for the other.
    static let urlPattern: String = {
        let escape = "%[0-9A-Fa-f]{2}"
        let segment = "([A-Za-z0-9._~@!$&'()*+,;=\\[\\]-]|\(escape))"
        let unhashed = "([A-Za-z0-9._~:/?@!$&'()*+,;=\\[\\]-]|\(escape))"
        let rest = "\(unhashed)*(#\(unhashed)*)?"
        return "^([A-Za-z][A-Za-z0-9+.-]*:\(rest)|\(segment)*([/?]\(rest)|#\(unhashed)*)?|:\(rest))$"
    }()

    /// The URL `text` is, when it is one by `urlPattern` and Foundation reads it unchanged.
    static func url(fromText text: String) -> URL? {
        guard !text.isEmpty, text.range(of: urlPattern, options: .regularExpression) != nil,
            let url = URL(string: text), url.absoluteString == text
        else { return nil }
        return url
    }

    // MARK: Numbers as written

    /// The integer a number's text names, read from its decimal digits, never through `Double`:
    /// `.integer` (or `.unsignedInteger` above `Int64.max`) when its value is an integer of 64 bits,
    /// whatever the form (`5`, `5.0`, `5e0`, `50E-1`, `1234567890123456789.0`); `nil` for a
    /// fraction (`1.00000000000000000001`), an integer beyond 64 bits, or text that is not a number
    /// (JSON's number syntax, which a leading `+` may start).
    static func integer(fromNumberText text: String) -> StoredValue? {
        guard let number = DecimalText(text) else { return nil }
        let (digits, power) = number.significant
        guard power >= 0, digits.count + power <= 20 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + repeatElement(0, count: power) {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        if !number.isNegative {
            return Int64(exactly: magnitude).map(StoredValue.integer) ?? .unsignedInteger(magnitude)
        }
        if magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
        return Int64(exactly: magnitude).map { .integer(-$0) }
    }

    /// How two numbers written as text compare, exactly, by their decimal digits (as a JSON
    /// Schema validator compares a number with a `maximum`: `1.0000000000000000001` is above 1,
    /// though no `Double` is); `nil` when either is no number.
    static func compare(numberText left: String, _ right: String) -> ComparisonResult? {
        guard let left = DecimalText(left), let right = DecimalText(right) else { return nil }
        let (leftDigits, leftPower) = left.significant
        let (rightDigits, rightPower) = right.significant
        // The sign of each (0 for zero), then the magnitudes: the place of the first digit, then the digits.
        let leftSign = leftDigits.isEmpty ? 0 : left.isNegative ? -1 : 1
        let rightSign = rightDigits.isEmpty ? 0 : right.isNegative ? -1 : 1
        if leftSign != rightSign { return leftSign < rightSign ? .orderedAscending : .orderedDescending }
        var magnitude = ComparisonResult.orderedSame
        if leftDigits.count + leftPower != rightDigits.count + rightPower {
            magnitude =
                leftDigits.count + leftPower < rightDigits.count + rightPower ? .orderedAscending : .orderedDescending
        } else if let (first, second) = zip(leftDigits, rightDigits).first(where: { $0 != $1 }) {
            magnitude = first < second ? .orderedAscending : .orderedDescending
        } else if leftDigits.count != rightDigits.count {
            magnitude = leftDigits.count < rightDigits.count ? .orderedAscending : .orderedDescending
        }
        guard leftSign < 0 else { return magnitude }
        return magnitude == .orderedAscending
            ? .orderedDescending : magnitude == .orderedDescending ? .orderedAscending : .orderedSame
    }

    /// The real number a text names, as the `Double` nearest it (`0.1`, `1e-3`, a leading `+`), or
    /// `"nan"`, `"inf"`, `"-inf"` (the texts a document gives them in); `nil` for any other text
    /// (hexadecimal, `infinity`, `NaN`, a number beyond `Double`'s range).
    static func realNumber(fromText text: String) -> Double? {
        if let number = nonFiniteNumbers[text] { return number }
        guard DecimalText(text) != nil, let number = Double(text), number.isFinite else { return nil }
        return number
    }

    /// The texts of the numbers JSON cannot hold, as every export writes them.
    static let nonFiniteNumbers: [String: Double] = ["nan": .nan, "inf": .infinity, "-inf": -.infinity]

    // MARK: Real numbers

    /// The largest magnitude a `Float` setting takes from a number: `3.4028235e38`, the shortest
    /// text of `Float.greatestFiniteMagnitude` (what an export writes for it), read as a `Double`.
    static let floatMagnitudeLimit = Double("\(Float.greatestFiniteMagnitude)") ?? Double(Float.greatestFiniteMagnitude)

    /// Whether a number is one a `Float` (`isFloat`) or a `Double` setting takes: finite and
    /// within the type's range (the non-finite values are written `"nan"`, `"inf"`, `"-inf"`).
    static func isInRange(_ number: Double, isFloat: Bool) -> Bool {
        number.isFinite && (!isFloat || abs(number) <= floatMagnitudeLimit)
    }

    /// Whether a number read from text is within the type's range by its digits, compared with
    /// the limit as the schema writes it (`3.40282350000000001e38` is beyond a `Float`'s, though
    /// it rounds to it); `true` for any other value.
    static func isInRange(numberText value: StoredValue, isFloat: Bool) -> Bool {
        guard case .numberText(let text) = value else { return true }
        let limit = "\(isFloat ? floatMagnitudeLimit : Double.greatestFiniteMagnitude)"
        return compare(numberText: text, limit) != .orderedDescending
            && compare(numberText: text, "-" + limit) != .orderedAscending
    }
}

/// A number as JSON writes it (`-12.50e3`; a leading `+` too), in decimal digits: the value is
/// `digits` (as one integer) times ten to `exponent`.
private struct DecimalText {
    var isNegative = false
    var digits: [UInt8] = []
    var exponent = 0

    init?(_ text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        let sign = scanner.sign()
        isNegative = sign == -1
        let whole = scanner.digits()
        guard !whole.isEmpty, whole == "0" || !whole.hasPrefix("0") else { return nil }
        var fraction = ""
        if scanner.skip(".") {
            fraction = scanner.digits()
            guard !fraction.isEmpty else { return nil }
        }
        if scanner.skip("e") || scanner.skip("E") {
            let exponentSign = scanner.sign() ?? 1
            let exponentText = scanner.digits()
            guard !exponentText.isEmpty else { return nil }
            let exponentDigits = exponentText.drop { $0 == "0" }
            // Beyond any digits a text can hold: the value is zero, or no integer of 64 bits.
            exponent = exponentSign * (exponentDigits.count > 9 ? 1_000_000_000 : Int(exponentDigits) ?? 0)
        }
        guard scanner.isAtEnd else { return nil }
        digits = (whole + fraction).utf8.map { $0 - UInt8(ascii: "0") }
        exponent -= fraction.count
    }

    /// The digits from the first to the last that is not 0 (none for zero), and the power of ten
    /// they are multiplied by.
    var significant: (digits: ArraySlice<UInt8>, power: Int) {
        guard let last = digits.lastIndex(where: { $0 != 0 }), let first = digits.firstIndex(where: { $0 != 0 }) else {
            return ([], 0)
        }
        return (digits[first...last], exponent + (digits.count - 1 - last))
    }
}

/// Reads digits and marks from a UTF-8 text, left to right.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ mark: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: mark) else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits, as a number.
    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + digits] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// The decimal digits from here on, as text.
    mutating func digits() -> String {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `+` as 1, `-` as -1.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
