import Foundation

/// A setting whose incoming value could not be used; it keeps the value it had.
struct SettingProblem {
    /// The setting's stored name, with its nested objects' names before it: `audio.volume`.
    var setting: String
    /// The type the setting holds, for messages.
    var expected: String
    var reason: String
}

/// Collects what a lenient walk (every load) could not use, as one error.
struct LoadProblems {
    private(set) var settings: [String] = []
    private(set) var reasons: [String] = []

    mutating func append(setting: String, reason: String) {
        settings.append(setting)
        reasons.append("\(setting): \(reason)")
    }

    mutating func append(_ problem: SettingProblem) {
        append(setting: problem.setting, reason: problem.reason)
    }

    /// ``AppSettingsError/unreadableSettings(key:settings:reasons:)``, or `nil` if nothing failed.
    func error(key: String) -> AppSettingsError? {
        settings.isEmpty ? nil : .unreadableSettings(key: key, settings: settings, reasons: reasons)
    }
}
