import Foundation

/// A set's `UserDefaults` key, and every name made from it: the one place they are made.
///
/// | Name | Form | Used by |
/// | --- | --- | --- |
/// | the key | `AppSettings.<postfix>` | the store |
/// | a backup of unreadable bytes | `<key>.unreadable-<milliseconds>` | `SettingsStore` |
/// | a synced setting's cloud key | `<key>.<setting>` | sync |
/// | a setting shown in the Settings app | `<postfix>.<setting>` | `Internal/SettingsApp` |
/// | a launch argument | `-<postfix>.<path>` | overrides |
/// | an environment variable | `MY_APPS_SETTINGS_SOUND_LEVEL` | overrides |
/// | a managed-configuration file | `AppSettings/<domain>/<key>.json` | overrides (Linux) |
/// | a file named after the key | `fileNameComponent(key)` | recovery copies, lock files |
struct SettingsKey: Hashable, Sendable, CustomStringConvertible {
    /// What every set's key begins with.
    static let prefix = "AppSettings."

    /// The class's part: ``AppSettingsObject/userDefaultsKeyPostfix``.
    let postfix: String
    /// The whole key: ``prefix`` and ``postfix``.
    let name: String

    init(postfix: String) {
        self.postfix = postfix
        self.name = Self.prefix + postfix
    }

    /// A key as stored: its postfix is what follows the prefix (all of it, without one).
    init(storedKey: String) {
        self.name = storedKey
        self.postfix = storedKey.hasPrefix(Self.prefix) ? String(storedKey.dropFirst(Self.prefix.count)) : storedKey
    }

    var description: String { name }

    /// Whether the postfix is empty: such a key names no set.
    var hasEmptyPostfix: Bool { postfix.isEmpty }

    // MARK: The store

    /// The key unreadable bytes are moved to, at `date`, before they are replaced.
    func backupKey(at date: Date = Date()) -> String {
        let stamp = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return "\(name)\(Self.backupInfix)\(stamp)"
    }

    /// The time stamp of `candidate` if it is one of this key's backup keys.
    func backupStamp(of candidate: String) -> Int64? {
        guard candidate.hasPrefix(name + Self.backupInfix) else { return nil }
        return Int64(candidate.dropFirst(name.count + Self.backupInfix.count))
    }

    private static let backupInfix = ".unreadable-"

    /// The key the system Settings app keeps a shown setting's value under
    /// (`@Setting(inSettingsApp: true)`): `"<postfix>.<stored name>"`.
    func settingsAppKey(of setting: String) -> String { "\(postfix).\(setting)" }

    /// The key as one file-name component (recovery copies, lock files).
    var fileName: String { fileNameComponent(name) }

    // MARK: Sync

    func cloudKey(ofSettingNamed setting: String) -> String {
        name + "." + setting
    }

    // MARK: Overrides

    /// `-<postfix>.<path>`'s key: `MyAppsSettings.soundLevel`, `MyAppsSettings.audio.volume`.
    func argumentKey(path: String) -> String {
        postfix + "." + path
    }

    /// `MY_APPS_SETTINGS_SOUND_LEVEL`: the postfix and each part of the path split into words
    /// where a lowercase letter meets an uppercase one, joined with `_`, uppercased; characters
    /// an environment variable's name cannot hold (`.`, `-`) become `_`.
    func environmentName(path: String) -> String {
        // Not `joined(separator:)`, whose first use scans the process's conformance records.
        path.split(separator: ".").reduce(Self.words(postfix)) { $0 + "_" + Self.words(String($1)) }
    }

    /// The managed-configuration file of this set in the configuration directories (Linux),
    /// relative to each: `AppSettings/<domain>/<key>.json`.
    func managedConfigurationFile(domain: String) -> String {
        "AppSettings/" + fileNameComponent(domain) + "/" + fileName + ".json"
    }

    private static func words(_ name: String) -> String {
        var result = ""
        var previousIsLowercase = false
        for character in name {
            if character.isUppercase, previousIsLowercase { result.append("_") }
            previousIsLowercase = character.isLowercase
            let isAllowed = character.isASCII && (character.isLetter || character.isNumber)
            result.append(isAllowed ? character : "_")
        }
        return result.uppercased()
    }
}
