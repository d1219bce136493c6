import AppSettings
import Foundation

/// Edits a stored settings set by stored name, without the app's settings classes: the writes of
/// the `appsettings` tool (`set`, `import`). Not part of the library's API (SPI).
///
/// Every edit goes through the library's store, as a synchronization does: re-read under the
/// domain's lock, edited, written with its recovery copy and announced to live objects. Without a
/// class, a value is typed like the value stored for its setting (a JSON string is a date where a
/// date is stored), so only stored settings can be edited, and `nil` only where `nil` is stored. A
/// set that cannot be read entirely is never rewritten. Refusals throw and write nothing.
///
/// A set that carries its schema (`$schema`, `StoredSchema`) has every changed value checked
/// against it before it is typed, refused with the very error
/// ``AppSettingsObject/update(fromJSON:replacingAll:)`` throws; a set stored before gets the checks
/// above only, in the same words.
@_spi(AppSettingsTool)
public enum StoredSettingsEditor {
    /// Sets one stored setting to the value `text` gives. A JSON object changes the entries it
    /// names and keeps the others, as in ``update(fromJSON:replacingAll:userDefaults:key:)``.
    ///
    /// - Parameters:
    ///   - text: The value: the text itself where a string, a date (ISO 8601), `Data` (base64), a
    ///     URL or a UUID is stored (`null` for nil, but for a string the set's schema does not say
    ///     is optional); JSON for the others
    ///     (numbers, Booleans, null, arrays, objects).
    ///   - setting: A stored name, or a dotted path into a nested settings object or a dictionary
    ///     (`audio.volume`) when no setting has that name.
    ///   - userDefaults: The suite.
    ///   - key: The set's full key (`AppSettings.MySettings`).
    public static func setValue(
        _ text: String,
        forSetting setting: String,
        userDefaults: UserDefaults,
        key: String
    ) throws(AppSettingsError) {
        try StoredSets.edit(userDefaults: userDefaults, key: key) { entries, context in
            let path = try path(of: setting, in: entries, key: key)
            guard let template = entry(at: path, in: entries) else {
                throw AppSettingsError.unknownSetting(key: key, setting: setting)
            }
            // `null` for a setting the set's schema says is optional is nil, whatever is stored
            // (a `String?` holding a string included).
            let isNil = text == "null" && context.isOptional(path)
            let value = isNil ? .null : jsonValue(text: text, like: template)
            // What the set's schema refuses is refused in the app's words (`update(fromJSON:)`'s),
            // naming the value as it was given; then the value is typed like the stored one.
            let typedValue: StoredValue
            do {
                try context.check(value, at: path, merging: true)
                typedValue =
                    isNil ? .null : try typed(value, like: template, merging: true, strict: true, setting: setting)
            } catch AppSettingsError.invalidJSONValue(setting, let expected, _) {
                throw AppSettingsError.invalidJSONValue(setting: setting, expected: expected, found: text)
            }
            entries = StoredValue.setting(typedValue, at: path, in: entries, creatingDictionaries: false)
        }
    }

    /// Takes a stored set away, whether or not it can be read, keeping its bytes under
    /// `<key>.unreadable-<ms>` (returned) as the app keeps an unreadable set's; the app then loads
    /// its developer defaults.
    ///
    /// - Parameters:
    ///   - userDefaults: The suite.
    ///   - key: The set's full key.
    /// - Returns: The key the bytes are kept under.
    public static func removeSet(userDefaults: UserDefaults, key: String) throws(AppSettingsError) -> String {
        try StoredSets.remove(userDefaults: userDefaults, key: key)
    }

    /// Stores a JSON document of one set (the form `appsettings export` writes), all or nothing.
    ///
    /// Each setting the document names must be stored already; a JSON object (a nested settings
    /// object, a `Codable` value, a dictionary) changes the entries it names and keeps the others.
    /// A `$schemaVersion` other than the stored set's is refused: only the app's class can
    /// migrate (``AppSettingsObject/update(fromJSON:replacingAll:)``).
    ///
    /// - Parameters:
    ///   - data: The document.
    ///   - replacingAll: `true` removes the stored settings the document does not name (the app
    ///     loads their developer defaults), and replaces objects whole.
    ///   - userDefaults: The suite.
    ///   - key: The set's full key.
    public static func update(
        fromJSON data: Data,
        replacingAll: Bool,
        userDefaults: UserDefaults,
        key: String
    ) throws(AppSettingsError) {
        let document = try StoredSets.jsonDocument(from: data, key: key)
        try StoredSets.edit(userDefaults: userDefaults, key: key) { entries, context in
            let schemaVersion = context.schemaVersion
            if let version = document.schemaVersion, version != schemaVersion ?? 0 {
                throw AppSettingsError.migrationFailed(
                    key: key,
                    fromSchemaVersion: version,
                    reason: "the stored set has schema version \(schemaVersion ?? 0); without the app's "
                        + "settings class there is no migration (import it in the app with update(fromJSON:))")
            }
            var result = replacingAll ? [:] : entries
            for (name, value) in document.entries.sorted(by: { $0.key < $1.key }) {
                guard let template = entries[name] else {
                    throw AppSettingsError.unknownSetting(key: key, setting: name)
                }
                try context.check(value, at: [name], merging: !replacingAll)
                result[name] = try typed(value, like: template, merging: !replacingAll, setting: name)
            }
            entries = result
        }
    }

    // MARK: Values by what is stored

    private static let nonFiniteTexts: Set = ["nan", "inf", "-inf"]

    /// The value `text` gives, as JSON would give it, for a setting that stores `template`.
    private static func jsonValue(text: String, like template: StoredValue) -> StoredValue {
        switch template {
        case .string:
            return .string(text)
        case .date, .data, .url, .uuid:
            // `null` is no date, Data, URL or UUID: it is nil.
            return text == "null" ? .null : .string(text)
        case .float where nonFiniteTexts.contains(text), .double where nonFiniteTexts.contains(text):
            return .string(text)
        default:
            // Read exactly (an integer beyond Int64 is not rounded into it); text that is not JSON
            // stays text, which the typing refuses with what it expected.
            return StoredSets.storedValue(fromJSONText: text) ?? .string(text)
        }
    }

    /// `value` typed like `template`; `strict: true` refuses JSON null where a value is
    /// stored (the setting may not be optional).
    private static func typed(
        _ value: StoredValue,
        like template: StoredValue,
        merging: Bool,
        strict: Bool = false,
        setting: String
    ) throws -> StoredValue {
        do {
            return try StoredSets.storedValue(value, like: template, merging: merging, strict: strict)
        } catch let mismatch as StoredValueMismatch {
            throw AppSettingsError.invalidJSONValue(
                setting: setting, expected: mismatch.expected, found: mismatch.found)
        }
    }

    // MARK: Paths

    /// `setting` as a path: the stored name itself, or its dotted components into objects.
    private static func path(of setting: String, in entries: [String: StoredValue], key: String) throws -> [String] {
        if entries[setting] != nil { return [setting] }
        let components = setting.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard components.count > 1, entry(at: components, in: entries) != nil else {
            throw AppSettingsError.unknownSetting(key: key, setting: setting)
        }
        return components
    }

    private static func entry(at path: [String], in entries: [String: StoredValue]) -> StoredValue? {
        var current = StoredValue.dictionary(entries)
        for component in path {
            guard case .dictionary(let values) = current, let value = values[component] else { return nil }
            current = value
        }
        return current
    }

}

// MARK: What the tool reads

@_spi(AppSettingsTool)
extension StoredSettingsEditor {
    /// The most bytes a document (`import`, `diff`) may have: twice what a domain may hold.
    public static var maximumDocumentByteCount: Int { StoredSets.maximumDocumentByteCount }
    /// The most bytes a file `dump --file` reads may have: a recovery copy of the largest set.
    public static var maximumFileByteCount: Int { StoredSets.maximumFileByteCount }

    /// Everything `descriptor` gives (a file, a pipe, standard input), refused as soon as it passes
    /// `limit` bytes, before anything is parsed; the error's text (`"\(error)"`) names `name`.
    public static func contents(of descriptor: Int32, named name: String, limit: Int) throws -> Data {
        try StoredSets.contents(of: descriptor, named: name, limit: limit)
    }

    /// A JSON document's object (`$schemaVersion` included), read as ``update(fromJSON:replacingAll:userDefaults:key:)``
    /// reads it (numbers exactly, a name given twice refused, errors with line and column), in the
    /// form `JSONSerialization` gives: for `appsettings diff`.
    public static func jsonObject(ofDocument data: Data) throws(AppSettingsError) -> [String: Any] {
        try StoredSets.jsonObject(ofDocument: data)
    }

    /// Throws ``AppSettingsError/invalidSuiteName(name:reason:)`` for a suite name the library
    /// refuses (empty, `/`, `..`, NUL, too long), before anything is read or written.
    public static func check(suiteName: String) throws(AppSettingsError) {
        try StoredSets.check(suiteName: suiteName)
    }

    /// Throws ``AppSettingsError/invalidKey(key:reason:)`` for a key the library refuses.
    public static func check(key: String) throws(AppSettingsError) {
        try StoredSets.check(key: key)
    }
}
