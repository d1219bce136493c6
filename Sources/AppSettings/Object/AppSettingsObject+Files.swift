import Foundation

extension AppSettingsObject {
    /// The file that holds the `UserDefaults` domain this set is stored in, where the library can
    /// know it; `nil` on Apple platforms, where the preferences daemon owns that file.
    ///
    /// On Linux, swift-corelibs-foundation keeps a domain in
    /// `$XDG_CONFIG_HOME/<domain>.plist` (`$HOME/.config/<domain>.plist` when `XDG_CONFIG_HOME` is
    /// not an absolute path), where `<domain>` is the suite's name, or for `UserDefaults.standard`
    /// the bundle identifier or else the process name (a command-line tool's executable name).
    /// Show it to a person who asks where their settings are.
    public final var domainFileURL: URL? {
        store.domain.domainFileURL
    }

    /// On Linux, the file that holds the library's recovery copy of this set
    /// (`<configuration directory>/AppSettings/<domain>/<key>.archive`: two slots written in turns,
    /// so that one always holds a whole copy), written with every synchronization and used when
    /// the domain file lost the key; `nil` on Apple platforms. `StoredSettingsInspector`
    /// (`AppSettingsStoredSets`) reads it.
    public final var recoveryCopyURL: URL? {
        store.domain.recoveryCopyURL(forKey: userDefaultsKey)
    }

    /// Removes a whole `UserDefaults` suite: its persistent domain and, on Linux, its file and the
    /// library's recovery copies and lock file for it.
    ///
    /// For scratch suites in tests and previews:
    ///
    /// ```swift
    /// let name = "Preview-" + UUID().uuidString
    /// let settings = MySettings(store: .suite(name))
    /// defer { try? AppSettingsObject.removeSuite(named: name) }
    /// ```
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` (with the suite's name as the key)
    ///   when a file exists but cannot be removed;
    ///   ``AppSettingsError/invalidSuiteName(name:reason:)`` for a name that could lead outside the
    ///   configuration directory (nothing is removed).
    public static func removeSuite(named suiteName: String) throws {
        try StoreNames.check(suiteName: suiteName)
        try PreferencesDomain.removeSuite(named: suiteName)
    }
}
