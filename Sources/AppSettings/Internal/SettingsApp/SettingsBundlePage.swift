import Foundation

/// A `Settings.bundle/Root.plist` page made from a schema: the class's
/// (`AppSettingsObject.settingsBundlePage()`) or the one a stored set carries (`appsettings
/// settings-bundle`), so both give the same bytes.
///
/// Apple's Settings Application Schema Reference, "Schema File Root Content": "PreferenceSpecifiers
/// (required) Array: An array of dictionaries, each of which contains the data for a single
/// preference element. The order of the elements in the array defines the order that they are
/// displayed on the screen"; "StringsTable String: The name of the strings file associated with
/// this schema file. A copy of this file (with appropriate localized strings) should be located in
/// each of your bundle's language-specific project directories. If you do not include this key,
/// the strings in this schema file are not localized"; and "ApplicationGroupContainerIdentifier
/// String: The app group identifier to use for storing preference values."
enum SettingsBundlePage {
    /// One shown setting: its key, title and control, with its developer default.
    struct Item {
        var key: String
        var title: String
        var control: SettingsAppControl
        var defaultValue: StoredValue?
        var position: Int

        /// The titles the Settings app shows for it: its own, and a choice's values'.
        var titles: [String] {
            guard case .choice(_, let titles) = control else { return [title] }
            return [title] + titles
        }
    }

    /// The shown settings of `properties` (a class's top-level settings; a nested object's are not
    /// shown), in declaration order, keyed `"<postfix>.<stored name>"`.
    static func items(postfix: String, properties: [SchemaProperty]) -> [Item] {
        properties.compactMap { property -> Item? in
            guard let entry = property.settingsApp else { return nil }
            guard let control = SettingsAppControl(node: property.node, range: property.range, entry: entry) else {
                // Only a type of the app's own conformed to `SettingsAppValue` gets here.
                Log.error("\(postfix).\(property.name): the Settings app cannot show its type; left off the page")
                return nil
            }
            return Item(
                key: SettingsKey(postfix: postfix).settingsAppKey(of: property.name),
                title: property.description ?? words(of: property.name), control: control,
                defaultValue: entry.defaultValue ?? property.defaultValue, position: entry.position)
        }
        .sorted { $0.position < $1.position }
    }

    /// The page: an XML property list, each dictionary's keys sorted, its titles localized by
    /// `Root.strings` (``strings(items:)``).
    static func document(items: [Item], appGroup: String?) -> Data {
        var root: [String: PageValue] = [
            "PreferenceSpecifiers": .array(specifiers(of: items).map { .dictionary($0) }),
            "StringsTable": .string("Root"),
        ]
        if let appGroup { root["ApplicationGroupContainerIdentifier"] = .string(appGroup) }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        PageValue.dictionary(root).write(to: &text, indent: "")
        text += "</plist>\n"
        return Data(text.utf8)
    }

    /// The specifiers of `items`, each slider under a group titled as it: the Slider Element has no
    /// title, and a `PSGroupSpecifier` "simply contains a title string that is displayed
    /// immediately before one or more configurable preferences" (Schema File Root Content). The
    /// element after a slider begins an untitled group, so that it is not under the slider's title.
    private static func specifiers(of items: [Item]) -> [[String: PageValue]] {
        var specifiers: [[String: PageValue]] = []
        var followsSlider = false
        for item in items {
            let isSlider = if case .slider = item.control { true } else { false }
            if isSlider || followsSlider {
                var group: [String: PageValue] = ["Type": .string("PSGroupSpecifier")]
                if isSlider { group["Title"] = .string(item.title) }
                specifiers.append(group)
            }
            specifiers.append(specifier(of: item))
            followsSlider = isSlider
        }
        return specifiers
    }

    /// The page's `Root.strings`: each title it shows (a setting's, a choice's), once, as its own
    /// key and value, for the development language's folder (`en.lproj`) and for translators.
    /// UTF-16 with a byte-order mark: "It is recommended that you save strings files using the
    /// UTF-16 encoding, which is the default encoding for standard strings files" (Resource
    /// Programming Guide, String Resources).
    static func strings(items: [Item]) -> Data {
        var seen: Set<String> = []
        var text = "/* The titles of Root.plist, made by AppSettings from the settings' declarations. */\n"
        for title in items.flatMap(\.titles) where seen.insert(title).inserted {
            let quoted =
                "\""
                + title.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
            text += "\(quoted) = \(quoted);\n"
        }
        return Data([0xFF, 0xFE]) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
    }

    /// The specifier dictionary of one setting, with the keys the element's table of the Settings
    /// Application Schema Reference marks required.
    private static func specifier(of item: Item) -> [String: PageValue] {
        var specifier: [String: PageValue] = ["Key": .string(item.key), "Title": .string(item.title)]
        let defaultValue = item.defaultValue.flatMap { item.control.settingsAppValue(of: $0) }
        switch item.control {
        case .toggleSwitch:
            specifier["Type"] = .string("PSToggleSwitchSpecifier")
            specifier["DefaultValue"] = .bool(defaultValue as? Bool ?? false)
        case .slider(let minimum, let maximum, _, _):
            // The Slider Element's table has no Title: the Settings app shows none beside a slider.
            specifier["Type"] = .string("PSSliderSpecifier")
            specifier["DefaultValue"] = .real(defaultValue as? Double ?? minimum)
            specifier["MinimumValue"] = .real(minimum)
            specifier["MaximumValue"] = .real(maximum)
        case .choice(let values, let titles):
            specifier["Type"] = .string("PSMultiValueSpecifier")
            specifier["Values"] = .array(values.compactMap { PageValue(JSONForm.jsonValue($0)) })
            specifier["Titles"] = .array(titles.map { .string($0) })
            specifier["DefaultValue"] = defaultValue.flatMap(PageValue.init) ?? .string("")
        case .textField(let node):
            specifier["Type"] = .string("PSTextFieldSpecifier")
            specifier["DefaultValue"] = .string(defaultValue as? String ?? "")
            specifier["AutocapitalizationType"] = .string("None")
            specifier["AutocorrectionType"] = .string("No")
            if node != .string {
                let unsigned: Bool
                if case .integer(let minimum, _) = node { unsigned = minimum == 0 } else { unsigned = false }
                specifier["KeyboardType"] = .string(unsigned ? "NumberPad" : "NumbersAndPunctuation")
            } else {
                specifier["KeyboardType"] = .string("Alphabet")
            }
        }
        return specifier
    }

    /// A name in words: `dontDimScreen` → "Dont dim screen", `sound_level` → "Sound level".
    static func words(of name: String) -> String {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            if character == "_" || character == "-" || character == "." || character == " " {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                words.append(current)
                current = String(character)
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        let sentence = words.enumerated().map { index, word in
            // An acronym (URL, ID) keeps its case; other words after the first are lowercased.
            if index == 0 { return word.prefix(1).uppercased() + word.dropFirst() }
            return word.allSatisfy(\.isUppercase) && word.count > 1 ? word : word.lowercased()
        }
        return sentence.joined(separator: " ")
    }
}

/// A value of the page's property list.
private enum PageValue {
    case string(String)
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case array([PageValue])
    case dictionary([String: PageValue])

    /// A raw value or a default as JSON gives it (a Boolean, an integer, a real, a string).
    init?(_ value: Any) {
        switch value {
        case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
        case let string as String: self = .string(string)
        case let integer as Int: self = .integer(Int64(integer))
        case let integer as Int64: self = .integer(integer)
        case let real as Double: self = .real(real)
        case let number as NSNumber:
            self =
                Double(number.int64Value) == number.doubleValue
                ? .integer(number.int64Value) : .real(number.doubleValue)
        default: return nil
        }
    }

    func write(to text: inout String, indent: String) {
        switch self {
        case .string(let string): text += "\(indent)<string>\(Self.escaped(string))</string>\n"
        case .bool(let bool): text += "\(indent)<\(bool ? "true" : "false")/>\n"
        case .integer(let integer): text += "\(indent)<integer>\(integer)</integer>\n"
        case .real(let real): text += "\(indent)<real>\(real)</real>\n"
        case .array(let values):
            text += "\(indent)<array>\n"
            for value in values { value.write(to: &text, indent: indent + "\t") }
            text += "\(indent)</array>\n"
        case .dictionary(let values):
            text += "\(indent)<dict>\n"
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                text += "\(indent)\t<key>\(Self.escaped(key))</key>\n"
                value.write(to: &text, indent: indent + "\t")
            }
            text += "\(indent)</dict>\n"
        }
    }

    private static func escaped(_ string: String) -> String {
        string.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

extension SettingsBundlePage {
    /// The shown settings of `settingsClass`.
    static func items(of settingsClass: AppSettingsObject.Type) -> [Item] {
        let object = ScratchCopyDefaults.describing(settingsClass)
        return items(postfix: object.binding.key.postfix, properties: object.forms.schemaProperties())
    }

    /// The page of `settingsClass` (``AppSettingsObject/settingsBundlePage(appGroup:)``), for the App
    /// Group `appGroup` or else the one of the class's `sharedStore`, else for the app's own defaults.
    ///
    /// - Throws: ``AppSettingsError/invalidSuiteName(name:reason:)`` when the page's values could
    ///   never reach the class's store: the Settings app writes the app's own defaults or the App
    ///   Group the page names ("Enable the App Groups capability for each executable that needs to
    ///   access the shared preferences. The group you select should match the value of this key",
    ///   Schema File Root Content), never another suite; or when `appGroup` is no App Group's
    ///   identifier (`group.<name>`).
    static func document(of settingsClass: AppSettingsObject.Type, appGroup: String?) throws(AppSettingsError)
        -> Data
    {
        let store = settingsClass.sharedStore
        let group = appGroup ?? (store.isAppGroup ? store.suiteName : nil)
        if let group, !group.hasPrefix("group.") || group.count == "group.".count {
            throw .invalidSuiteName(
                name: group, reason: "ApplicationGroupContainerIdentifier names an App Group: group.<name>")
        }
        if let name = store.suiteName, name != group {
            throw .invalidSuiteName(
                name: name,
                reason: "\(settingsClass).sharedStore is \(store), where the Settings app never writes: it writes "
                    + (group.map { "the App Group \($0)" } ?? "the app's own defaults")
                    + " (make the page with settingsBundlePage(appGroup:) for the group the settings are kept in)")
        }
        return document(items: items(of: settingsClass), appGroup: group)
    }

    /// Why the Settings app never writes `store`, or `nil`: a suite that is not an App Group's.
    static func unreachability(of store: AppSettingsStore) -> String? {
        guard case .suite(let name) = store.identity, !SuiteNames.isAppGroup(name) else { return nil }
        return "the Settings app writes the app's own defaults or an App Group's suite, never the suite \(name)"
    }

    /// The settings classes and stores already reported.
    private static let reported = Protected<Set<String>>([])

    /// Reports, once per class and store, a live object that shows settings in a store the Settings
    /// app never writes: what the user changes there would never reach the set.
    static func reportUnreachableStore(of object: AppSettingsObject) {
        let store = object.settingsStore
        guard let reason = unreachability(of: store),
            reported.withLock({ $0.insert("\(type(of: object)) \(store)").inserted })
        else { return }
        Log.error(
            "\(type(of: object)) shows settings in the Settings app, but keeps them in \(store): \(reason), so "
                + "nothing the user changes there reaches them; keep them in .standard or .appGroup(_:)")
    }
}
