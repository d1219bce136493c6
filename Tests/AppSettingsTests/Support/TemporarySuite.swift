import Foundation

/// A fresh, uniquely named `UserDefaults` suite that removes itself (its domain file and the
/// library's recovery copies) when released. Every test makes its own, so tests run in parallel.
final class TemporarySuite: @unchecked Sendable {
    let name: String
    let userDefaults: UserDefaults

    init() {
        name = "AppSettingsTests-" + UUID().uuidString
        userDefaults = UserDefaults(suiteName: name)!
    }

    deinit {
        Self.remove(suiteNamed: name)
    }

    /// Removes a suite's domain and the library's files for it.
    static func remove(suiteNamed name: String) {
        UserDefaults.standard.removePersistentDomain(forName: name)
        let config = configurationDirectory
        try? FileManager.default.removeItem(at: config.appendingPathComponent("\(name).plist"))
        try? FileManager.default.removeItem(at: config.appendingPathComponent("AppSettings/\(name)"))
    }

    /// Where corelibs keeps preference domains on Linux.
    static var configurationDirectory: URL {
        if let xdg = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config", isDirectory: true)
    }

    /// The raw value under `key`, read from disk as another process would see it.
    func storedObject(forKey key: String) -> Any? {
        userDefaults.synchronize()
        return userDefaults.object(forKey: key)
    }

    /// A second `UserDefaults` instance for the same suite.
    func another() -> UserDefaults {
        UserDefaults(suiteName: name)!
    }
}
