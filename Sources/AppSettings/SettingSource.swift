import Foundation

/// Where the value a setting returns comes from; see ``AppSettingsKeyPathMembers/source(of:)``.
///
/// The sources in the order they win, first to last:
///
/// | Source | Where |
/// | --- | --- |
/// | ``managed`` | Apple platforms: the managed app configuration (`com.apple.configuration.managed` in `UserDefaults.standard`), entry `<userDefaultsKey>`; Linux: `AppSettings/<domain>/<userDefaultsKey>.json` in the first directory of `$XDG_CONFIG_DIRS` (default `/etc/xdg`) that has it |
/// | ``launchArgument`` | `-<userDefaultsKeyPostfix>.<storedName> <value>` |
/// | ``environment`` | `MY_APPS_SETTINGS_SOUND_LEVEL` for postfix `MyAppsSettings` and setting `soundLevel` |
/// | ``stored`` | the user's value: loaded from `UserDefaults`, or assigned since |
/// | ``developerDefault`` | the declared value |
///
/// The first three are overrides: never saved, they change what the property returns and leave
/// the user's value, which ``AppSettingsObject/synchronizeToUserDefaults()`` stores, as it is.
/// More cases may come in later versions; switch over it with a `default`.
public enum SettingSource: String, Sendable, Hashable, CustomStringConvertible {
    /// Nothing stored holds the setting and it was not assigned since the last load or
    /// synchronization: it holds its developer default.
    case developerDefault
    /// The user's value: what the stored set holds for the setting, or what was assigned since the
    /// last load or synchronization (stored by the next one).
    case stored
    /// An environment variable overrides the setting.
    case environment
    /// A launch argument overrides the setting.
    case launchArgument
    /// Managed configuration (MDM on Apple platforms, system-wide configuration on Linux)
    /// overrides the setting.
    case managed

    /// Whether the value comes from an override, which is never saved.
    public var isOverride: Bool {
        switch self {
        case .environment, .launchArgument, .managed: true
        case .developerDefault, .stored: false
        }
    }

    /// A few words for people: `launch argument`, `developer default`.
    public var description: String {
        switch self {
        case .developerDefault: "developer default"
        case .stored: "stored"
        case .environment: "environment"
        case .launchArgument: "launch argument"
        case .managed: "managed"
        }
    }
}

/// An override that was found but not used: its value does not parse as the setting's type or
/// does not fit it (`999` for an `Int8`), it names no setting, or its source could not be read.
///
/// The setting keeps the value of the next source down; the problem is logged and listed in
/// ``AppSettingsObject/ignoredOverrides``.
public struct IgnoredOverride: Sendable, Hashable, CustomStringConvertible {
    /// The setting's stored name, with its nested objects' names before it (`audio.volume`);
    /// empty when the whole source could not be read.
    public let setting: String
    /// The source of the override.
    public let source: SettingSource
    /// Where it was found: the launch argument (`-MyAppsSettings.volume`), the environment
    /// variable (`MY_APPS_SETTINGS_VOLUME`), or the managed configuration's key or file.
    public let origin: String
    /// The value as it was given (text, or a description of a managed value).
    public let value: String
    /// Why it was not used.
    public let reason: String

    /// Creates a record of an ignored override.
    public init(setting: String, source: SettingSource, origin: String, value: String, reason: String) {
        self.setting = setting
        self.source = source
        self.origin = origin
        self.value = value
        self.reason = reason
    }

    /// One line naming the override, its value and the reason.
    public var description: String {
        let what = setting.isEmpty ? "" : " for '\(setting)'"
        return "\(source) override \(origin)\(what) = \(value) ignored: \(reason)"
    }
}
