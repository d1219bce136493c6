import Foundation

/// Everything that can go wrong while storing or loading settings, with the key and setting names
/// needed to act on it.
///
/// Loading never stops at the first problem: ``unreadableSettings(key:settings:reasons:)`` lists every
/// setting that kept its developer default, and the stored bytes stay where they were (see
/// ``AppSettingsObject/lastLoadError``).
public enum AppSettingsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ``AppSettingsObject/userDefaultsKeyPostfix`` is empty, so there is no key to store under.
    case emptyKeyPostfix(settingsClass: String)
    /// Two settings of one class store under the same name.
    case duplicateStoredName(settingsClass: String, name: String)
    /// An explicit stored name is empty, starts with `$`, or uses the `const` prefix.
    case invalidStoredName(settingsClass: String, name: String)
    /// The class's initialization made `@Setting` properties that reflection cannot see: the app
    /// was built without reflection metadata (`SWIFT_REFLECTION_METADATA_LEVEL`), which the library
    /// needs to name the settings. Nothing is stored or loaded.
    case settingsNotFound(settingsClass: String)
    /// The value under `key` is not `Data`: it was written by something else, and was left as is.
    case notData(key: String, foundType: String)
    /// The bytes under `key` are not a readable keyed archive; every setting kept its developer default.
    case unreadableArchive(key: String, settings: [String], reason: String)
    /// Some settings could not be read from `key` and kept their developer defaults; the others loaded.
    case unreadableSettings(key: String, settings: [String], reasons: [String])
    /// The subclass's ``AppSettingsObject/migrate(_:fromSchemaVersion:)`` threw.
    case migrationFailed(key: String, fromSchemaVersion: Int, reason: String)
    /// A value could not be converted to its stored form.
    case encodingFailed(key: String, setting: String, reason: String)
    /// With the archive, the domain (every key of the `UserDefaults` suite, backups included)
    /// would hold more than the platform's preferences allow (`byteCount` of `limit`: just under
    /// 4 MiB; just under 1 MiB on tvOS and watchOS); nothing was written.
    case tooLarge(key: String, byteCount: Int, limit: Int)
    /// ``AppSettingsObject/update(from:)`` met a value of the wrong type; nothing was changed.
    case invalidDictionaryValue(setting: String, expected: String, found: String)
    /// Writing to the store failed: the flush, the recovery copy or the lock; `reason` names the file.
    case storeFailed(key: String, reason: String)
    /// The suite name cannot name a store: it is empty, contains `/`, `..` or a NUL character, or
    /// is longer than 200 UTF-8 bytes (it becomes a file name); nothing was read or written.
    case invalidSuiteName(name: String, reason: String)
    /// The settings key cannot name a store: it contains `/`, `..` or a NUL character, or is longer
    /// than 200 UTF-8 bytes (it becomes a file name); nothing was read or written.
    case invalidKey(key: String, reason: String)
    /// Reading the store failed (a file the library keeps beside it could not be read); the
    /// settings keep what they held.
    case readFailed(key: String, reason: String)
    /// The store holds a set that cannot be read now (Apple platforms: protected data before the
    /// device's first unlock or during prewarming; Linux: a file of the set that exists but cannot
    /// be opened). A load keeps the developer defaults; a synchronization throws it and writes
    /// nothing. Once the store can be read, the set loads with unsaved changes kept on top (see
    /// <doc:ApplePlatforms>).
    case storeUnavailable(key: String, reason: String)
    /// The store keeps two copies of the set under `key` (Linux: the `UserDefaults` domain and the
    /// library's recovery copy) that differ, and neither's generation says which is newer (`reason`
    /// names the copy's file and both generations). The domain's set was loaded, and the next save
    /// writes over both. (When the copy's generation is higher, or the domain's set has none, the
    /// copy's set is loaded instead, without this error.)
    case ambiguousStoredSet(key: String, reason: String)
    /// A JSON document of settings (``AppSettingsObject/update(fromJSON:replacingAll:)``, the
    /// `appsettings` tool) is not JSON, not a JSON object, or has a `$schemaVersion` that is not an
    /// integer; nothing was changed.
    case malformedJSON(reason: String)
    /// A JSON document names a setting that the settings set under `key` does not have (a path
    /// such as `audio.level` inside a nested settings object); nothing was changed.
    case unknownSetting(key: String, setting: String)
    /// A value does not fit its setting (in a JSON document, or given to the `appsettings` tool):
    /// `found` is the value as it was written, `expected` what the setting's declaration accepts
    /// (`an integer in 1...10`); nothing was changed.
    case invalidJSONValue(setting: String, expected: String, found: String)
    /// A synced setting's value was not sent to the cloud key-value store under the cloud key `key`:
    /// it is over one of iCloud's limits, or iCloud refused it. The value is stored on this device
    /// all the same; it is sent when it changes again.
    case cloudValueRefused(key: String, setting: String, reason: String)
    /// The value the cloud key-value store holds under the cloud key `key` does not fit the synced
    /// setting (another version of the app, or another app, wrote it); the setting keeps its value.
    case cloudValueUnreadable(key: String, setting: String, reason: String)

    /// A sentence that says what went wrong and where.
    public var description: String {
        switch self {
        case .emptyKeyPostfix(let settingsClass):
            "\(settingsClass).userDefaultsKeyPostfix is empty: settings cannot be stored without a key"
        case .duplicateStoredName(let settingsClass, let name):
            "\(settingsClass) declares more than one setting stored as '\(name)'"
        case .invalidStoredName(let settingsClass, let name):
            "\(settingsClass) declares the invalid stored name '\(name)' (empty, '$' or 'const' prefix)"
        case .settingsNotFound(let settingsClass):
            "\(settingsClass) declares settings that reflection cannot see: build the app with reflection "
                + "metadata (SWIFT_REFLECTION_METADATA_LEVEL other than none), which names the settings; nothing "
                + "is stored or loaded"
        case .notData(let key, let foundType):
            "the value under '\(key)' is \(foundType), not Data; it was left untouched and developer defaults are used"
        case .unreadableArchive(let key, let settings, let reason):
            "the settings under '\(key)' could not be read (\(reason)); "
                + (settings.isEmpty
                    ? "no setting was read"
                    : "developer defaults are used for \(settings.joined(separator: ", "))")
                + "; the stored bytes are kept"
        case .unreadableSettings(let key, let settings, let reasons):
            "settings \(settings.joined(separator: ", ")) under '\(key)' could not be read and use developer "
                + "defaults: \(reasons.joined(separator: "; "))"
        case .migrationFailed(let key, let fromSchemaVersion, let reason):
            "migrating the settings under '\(key)' from schema version \(fromSchemaVersion) failed: \(reason)"
        case .encodingFailed(let key, let setting, let reason):
            "setting '\(setting)' under '\(key)' could not be encoded: \(reason)"
        case .tooLarge(let key, let byteCount, let limit):
            "with the settings under '\(key)', their domain would hold \(byteCount) bytes, more than the \(limit)-byte limit; nothing was written"
        case .invalidDictionaryValue(let setting, let expected, let found):
            "dictionary value for '\(setting)' is \(found), expected \(expected); nothing was changed"
        case .storeFailed(let key, let reason):
            "storing the settings under '\(key)' failed: \(reason)"
        case .invalidSuiteName(let name, let reason):
            "the suite name '\(printable(name))' cannot be used (\(reason)); nothing was read or written"
        case .invalidKey(let key, let reason):
            "the settings key '\(printable(key))' cannot be used (\(reason)); nothing was read or written"
        case .readFailed(let key, let reason):
            "reading the settings under '\(key)' failed: \(reason)"
        case .storeUnavailable(let key, let reason):
            "the settings under '\(key)' cannot be read now (\(reason)); nothing was written, so the stored set is kept"
        case .ambiguousStoredSet(let key, let reason):
            "the settings under '\(key)' may not be the newest stored: \(reason)"
        case .malformedJSON(let reason):
            "the JSON document of settings could not be read: \(reason); nothing was changed"
        case .unknownSetting(let key, let setting):
            "the settings under '\(key)' have no setting '\(setting)'; nothing was changed"
        case .invalidJSONValue(let setting, let expected, let found):
            "the value for '\(setting)' is \(found), expected \(expected); nothing was changed"
        case .cloudValueRefused(let key, let setting, let reason):
            "setting '\(setting)' is stored on this device but not synced under the iCloud key '\(key)': \(reason)"
        case .cloudValueUnreadable(let key, let setting, let reason):
            "the iCloud value under '\(key)' does not fit setting '\(setting)' (\(reason)); the setting keeps its value"
        }
    }
}

extension AppSettingsError {
    /// The settings (by path: `audio.volume`) whose stored values a load could not use.
    var unusedStoredSettings: [String] {
        switch self {
        case .unreadableArchive(_, let settings, _), .unreadableSettings(_, let settings, _): settings
        default: []
        }
    }
}

/// `name` with its control characters (a NUL among them) written as `\u{…}`, so a message shows them.
private func printable(_ name: String) -> String {
    name.unicodeScalars.map { scalar in
        scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
    }.joined()
}
