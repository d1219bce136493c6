import Foundation

// How a setting shown in the system Settings app looks there, and how its value crosses over:
// one control per setting, made from the setting's schema (type, range, choices), by the class
// and by the tool alike. The rules are those of Apple's Settings Application Schema Reference
// (developer.apple.com/library/archive/documentation/PreferenceSettings/Conceptual/
// SettingsApplicationSchemaReference), cited per control below.

/// What `@Setting(inSettingsApp: true)` declares beside the schema: the titles of a choice's
/// values, and, in a schema (the class's or the one a set carries), the setting's position and
/// developer default.
struct SettingsAppEntry: Sendable, Hashable {
    /// The declaration order among the class's settings, so that the page lists them as declared.
    var position: Int = 0
    /// The developer default, in its JSON form.
    var defaultValue: StoredValue?
    /// The titles of a choice's values, beside the schema's values (`nil` for other settings).
    var choiceTitles: [String]?
}

/// The Settings app's element for one setting.
enum SettingsAppControl: Equatable {
    /// `PSToggleSwitchSpecifier`: "DefaultValue (required) Boolean" (Toggle Switch Element).
    case toggleSwitch
    /// `PSSliderSpecifier`: "DefaultValue, MinimumValue, MaximumValue (required) Real" (Slider
    /// Element); `integer` rounds what the slider writes.
    case slider(minimum: Double, maximum: Double, integer: Bool, isFloat: Bool)
    /// `PSMultiValueSpecifier`: "Values (required) Array ... Titles (required) Array" (Multi Value
    /// Element), `values` in their JSON form.
    case choice(values: [StoredValue], titles: [String])
    /// `PSTextFieldSpecifier`: "DefaultValue String" (Text Field Element); a number's field has
    /// `KeyboardType` `NumberPad` (unsigned integers) or `NumbersAndPunctuation`.
    case textField(SchemaNode)

    /// The control of a setting of `node` with `range`; `nil` for a form the Settings app cannot
    /// show (which `@Setting(inSettingsApp:)` does not compile for).
    init?(node: SchemaNode, range: SchemaRange?, entry: SettingsAppEntry) {
        switch node {
        case .boolean:
            self = .toggleSwitch
        case .integer, .real:
            if let range, let minimum = range.lowerBound.jsonNumber, let maximum = range.upperBound.jsonNumber {
                let isFloat = node == .real(isFloat: true)
                self = .slider(minimum: minimum, maximum: maximum, integer: Self.isInteger(node), isFloat: isFloat)
            } else {
                self = .textField(node)
            }
        case .string:
            self = .textField(.string)
        case .choices(let raw, let values):
            guard raw == .string || Self.isInteger(raw) else { return nil }
            let titles = entry.choiceTitles ?? values.map { JSONForm.description(of: $0) }
            guard titles.count == values.count else { return nil }
            self = .choice(values: values, titles: titles)
        default:
            return nil
        }
    }

    private static func isInteger(_ node: SchemaNode) -> Bool {
        if case .integer = node { return true }
        return false
    }

    // MARK: Values, both ways

    /// What the Settings app's key holds for `stored` (a value in its JSON form), as the control
    /// writes it: a Boolean, a real, a raw value, or text.
    func settingsAppValue(of stored: StoredValue) -> Any? {
        switch self {
        case .toggleSwitch:
            guard case .bool(let value) = stored else { return nil }
            return value
        case .slider:
            return stored.jsonNumber.map { Self.shortest($0, of: stored) }
        case .choice:
            return JSONForm.jsonValue(stored)
        case .textField:
            if case .string(let text) = stored { return text }
            return stored.jsonNumber == nil ? nil : JSONForm.description(of: stored)
        }
    }

    /// A Float's shortest decimal (0.7, not 0.699999988079071), as its JSON form gives it.
    private static func shortest(_ number: Double, of stored: StoredValue) -> Double {
        guard case .float = stored, let value = JSONForm.jsonValue(stored) as? Double else { return number }
        return value
    }

    /// The stored form, for the setting's conversion and rules, of what the Settings app wrote
    /// under the key; throws, in the words a document's refusal uses, what the control takes when
    /// the value is not of it. Numbers are read as a document's are: an integer by its digits
    /// (`5.0` is 5, `1e30` none), NaN and the infinities never a slider's (no range holds them).
    func storedValue(fromSettingsApp object: Any) throws(SettingsAppValueProblem) -> StoredValue {
        let problem = SettingsAppValueProblem("expected \(expectedText)")
        guard let found = StoredValue(propertyListValue: object) else { throw problem }
        switch self {
        case .toggleSwitch:
            if case .bool = found { return found }
            // Apple's documentation lets a toggle's value be a number: 0 and 1 are read as Booleans.
            if case .integer(let number) = found, number == 0 || number == 1 { return .bool(number == 1) }
        case .slider(let minimum, let maximum, let integer, let isFloat):
            guard let number = found.jsonNumber, number.isFinite, minimum <= number, number <= maximum else { break }
            if integer {
                guard let rounded = Int64(exactly: number.rounded()) else { break }
                return .integer(rounded)
            }
            return isFloat ? .float(Float(number)) : .double(number)
        case .choice(let values, _):
            guard let value = values.first(where: { $0.isSameJSONValue(as: found) }) else { break }
            return value
        case .textField(let node):
            return try Self.storedValue(fromText: found, node: node, problem: problem)
        }
        throw problem
    }

    /// What the control takes, in the words of the setting's schema (`an integer in 0...100`).
    private var expectedText: String {
        switch self {
        case .toggleSwitch: return SchemaNode.boolean.expectedText
        case .slider(let minimum, let maximum, let integer, _):
            let range = SchemaRange(lowerBound: .double(minimum), upperBound: .double(maximum))
            return "\(integer ? "an integer" : "a number") in \(range.text)"
        case .choice(let values, _): return SchemaNode.choices(.string, values).expectedText
        case .textField(let node): return node.expectedText
        }
    }

    /// A text field's value, read as the setting's type: the text of a number (``numberText(_:integer:)``,
    /// then read as a document's number is), or a number.
    private static func storedValue(
        fromText found: StoredValue,
        node: SchemaNode,
        problem: SettingsAppValueProblem
    ) throws(SettingsAppValueProblem) -> StoredValue {
        var value = found
        if case .string(let text) = found, node != .string {
            let trimmed = Self.numberText(text, integer: Self.isInteger(node))
            value = TextForms.nonFiniteNumbers[trimmed] == nil ? .numberText(trimmed) : .string(trimmed)
        }
        guard node.problem(with: value, path: "") == nil else { throw problem }
        switch node {
        case .real(let isFloat):
            guard let number = (try? JSONForm.realNumber(value, for: Double.self))?.jsonNumber else { throw problem }
            return isFloat ? .float(Float(number)) : .double(number)
        case .integer: return value.exactInteger ?? value
        default: return value
        }
    }
}

extension SettingsAppControl {
    /// The locale a text field's number is read in: the user's (tests set another).
    @TaskLocal static var userLocale = Locale.autoupdatingCurrent

    /// A number's text typed in a text field, in the form the library writes numbers: `text` as it
    /// is when the library reads it so (an integer's digits for an integer setting, a number such
    /// as `0.5` for a real one: what a save writes reads back the same in every locale), else the
    /// number ``userLocale`` writes (`0,5` or `1.000,5` where the decimal separator is a comma), read
    /// by `NumberFormatter`, "A formatter that converts between numeric values and their textual
    /// representations", in that locale, not leniently. Other text is returned trimmed.
    static func numberText(_ typed: String, integer: Bool) -> String {
        let text = typed.trimmingCharacters(in: .whitespaces)
        if integer ? Int64(text) != nil || UInt64(text) != nil : Double(text) != nil { return text }
        let formatter = NumberFormatter()
        formatter.locale = userLocale
        formatter.numberStyle = .decimal
        formatter.isLenient = false
        formatter.generatesDecimalNumbers = true
        return formatter.number(from: text)?.stringValue ?? text
    }
}

/// Why a value the Settings app's key holds is not taken.
struct SettingsAppValueProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension SettingsAppEntry {
    /// The entry as a stored schema carries it (`StoredSchema`, `"a"`): `[position, default]`, and
    /// a choice's titles third.
    var compactForm: [Any] {
        var form: [Any] = [position, defaultValue.map(JSONForm.jsonValue) ?? NSNull()]
        if let choiceTitles { form.append(choiceTitles) }
        return form
    }

    /// The entry a stored schema carries; `nil` for a form this version does not read.
    init?(compactForm: StoredValue) {
        guard case .array(let form) = compactForm, form.count == 2 || form.count == 3,
            case .integer(let index) = form[0], let position = Int(exactly: index)
        else { return nil }
        self.position = position
        defaultValue = form[1] == .null ? nil : form[1]
        if form.count == 3 {
            guard case .array(let titles) = form[2] else { return nil }
            let texts = titles.compactMap(\.text)
            guard texts.count == titles.count else { return nil }
            choiceTitles = texts
        }
    }
}
