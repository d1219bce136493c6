import Foundation

// `@Setting(inSettingsApp: true)`: a setting shown in the system Settings app, on the page
// `settingsBundlePage()` makes (`Internal/SettingsApp`, `Object/AppSettingsObject+SettingsApp.swift`).
// Only the types the Settings app can show compile: `SettingsAppValue` types and `CaseIterable`
// choices of their raw values.

/// A setting type the system Settings app can show: `Bool` (a toggle switch), `String` (a text
/// field), the integers, `Float` and `Double` (a slider with `in:`, else a text field with a
/// numeric keyboard).
///
/// A `CaseIterable` `RawRepresentable` type whose raw value is a `String` or an integer is shown
/// too, as a list to choose from, without conforming. The library's own conformances are the
/// ones supported: a type of your own conformed to this protocol is left off the page (and
/// logged). See <doc:SettingsAppPage>.
public protocol SettingsAppValue: SettingValue {}

extension Bool: SettingsAppValue {}
extension String: SettingsAppValue {}
extension Int: SettingsAppValue {}
extension Int8: SettingsAppValue {}
extension Int16: SettingsAppValue {}
extension Int32: SettingsAppValue {}
extension Int64: SettingsAppValue {}
extension UInt: SettingsAppValue {}
extension UInt8: SettingsAppValue {}
extension UInt16: SettingsAppValue {}
extension UInt32: SettingsAppValue {}
extension UInt64: SettingsAppValue {}
extension Float: SettingsAppValue {}
extension Double: SettingsAppValue {}

extension Setting {
    /// Declares a setting shown in the system Settings app (when `inSettingsApp` is `true`): a
    /// `Bool` as a toggle switch, a `String` or a number as a text field.
    ///
    /// ```swift
    /// @Setting(description: "Don't dim the screen", inSettingsApp: true) var dontDimScreen = false
    /// @Setting(description: "Your name", inSettingsApp: true) var name = "guest"
    /// ```
    ///
    /// The setting is on the page ``AppSettingsObject/settingsBundlePage(appGroup:)`` makes, titled by
    /// `description` (else its name in words), under the key `"<userDefaultsKeyPostfix>.<stored name>"`;
    /// each save writes its value there too, and what the Settings app writes there comes back
    /// through `validate:` like an assignment. See <doc:SettingsAppPage>.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default: the page's `DefaultValue`.
    ///   - storedName: The name the value is stored and exported under (see
    ///     ``init(wrappedValue:_:legacyKey:syncs:validate:)``).
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - description: A human text: the title in the Settings app, the JSON Schema's description.
    ///   - inSettingsApp: Whether the Settings app shows the setting.
    ///   - validate: Called with every value assigned, loaded or taken from the Settings app.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        description: String? = nil,
        inSettingsApp: Bool,
        validate: (@Sendable (Value) -> Value)? = nil
    ) where Value: SettingsAppValue {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs, rules: validate,
            schema: SettingRules(
                description: description, settingsApp: inSettingsApp ? SettingsAppEntry() : nil,
                checkedByApp: validate != nil))
    }

    /// Declares a choice shown in the system Settings app (when `inSettingsApp` is `true`) as a
    /// list of its cases: `Values` their raw values, `Titles` their names in words (or their
    /// `description`, for a `CustomStringConvertible` type).
    ///
    /// ```swift
    /// enum Theme: String, CaseIterable { case light, dark }
    /// extension Theme: SettingValue {}
    ///
    /// @Setting(description: "Theme", inSettingsApp: true) var theme = Theme.light
    /// ```
    ///
    /// A raw value the Settings app's key holds that names no case is not taken.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default: the page's `DefaultValue`.
    ///   - storedName: The name the value is stored and exported under.
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - description: A human text: the title in the Settings app, the JSON Schema's description.
    ///   - inSettingsApp: Whether the Settings app shows the setting.
    ///   - validate: Called with every value assigned, loaded or taken from the Settings app.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        description: String? = nil,
        inSettingsApp: Bool,
        validate: (@Sendable (Value) -> Value)? = nil
    ) where Value: CaseIterable & RawRepresentable, Value.RawValue: SettingsAppValue {
        let titles = Value.allCases.map(settingsAppTitle(of:))
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs, rules: validate,
            schema: SettingRules(
                description: description, settingsApp: inSettingsApp ? SettingsAppEntry(choiceTitles: titles) : nil,
                checkedByApp: validate != nil))
    }

    /// Declares a number in `range` shown in the system Settings app (when `inSettingsApp` is
    /// `true`) as a slider over the range.
    ///
    /// ```swift
    /// @Setting(in: 0...1, description: "Sound level", inSettingsApp: true) var soundLevel: Float = 0.7
    /// ```
    ///
    /// What the slider writes (a real number) is rounded for an integer setting; a value outside
    /// `range` (or NaN), which no slider writes, is not taken but listed in
    /// ``AppSettingsObject/ignoredSettingsAppValues``. Apple's slider element has no title: the page
    /// puts the slider under a group titled by the description.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default, clamped into `range`: the page's `DefaultValue`.
    ///   - storedName: The name the value is stored and exported under.
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - range: The values the setting may hold: the slider's `MinimumValue` and `MaximumValue`.
    ///   - description: A human text: the page's title, the JSON Schema's description.
    ///   - inSettingsApp: Whether the Settings app shows the setting.
    ///   - validate: Called with every value assigned, loaded or taken from the Settings app, after clamping.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        in range: ClosedRange<Value>,
        description: String? = nil,
        inSettingsApp: Bool,
        validate: (@Sendable (Value) -> Value)? = nil
    ) where Value: RangedSettingValue & SettingsAppValue {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs,
            rules: clamping(then: validate) { range.clamping($0) }, isInRange: { range.contains($0) },
            schema: SettingRules(
                range: Value.schemaRange(range), description: description,
                settingsApp: inSettingsApp ? SettingsAppEntry() : nil, checkedByApp: validate != nil))
    }
}

/// A case's title in the Settings app: its `description` when it has one of its own, else its
/// name in words (`Theme.darkBlue` → "Dark blue").
private func settingsAppTitle<Value>(of value: Value) -> String {
    if let described = value as? any CustomStringConvertible { return described.description }
    return SettingsBundlePage.words(of: String(describing: value))
}
