import Foundation

/// A value the system Settings app's key of a shown setting (`@Setting(inSettingsApp: true)`) held
/// that the setting did not take: not of its type (text that is no number for an `Int`), a raw
/// value that names no case, or one its conversion refused.
///
/// The setting keeps its value, and the next save writes it over the key, so the Settings app
/// shows it again. Listed in ``AppSettingsObject/ignoredSettingsAppValues``.
public struct IgnoredSettingsAppValue: Sendable, Hashable, CustomStringConvertible {
    /// The setting's stored name.
    public let setting: String
    /// The `UserDefaults` key the Settings app wrote (`"<userDefaultsKeyPostfix>.<stored name>"`).
    public let key: String
    /// The value as the key held it, described.
    public let value: String
    /// Why it was not taken.
    public let reason: String

    /// Creates a record of an ignored value.
    public init(setting: String, key: String, value: String, reason: String) {
        self.setting = setting
        self.key = key
        self.value = value
        self.reason = reason
    }

    /// One line naming the key, its value and the reason.
    public var description: String {
        "Settings app value \(key) = \(value) for '\(setting)' ignored: \(reason)"
    }
}
