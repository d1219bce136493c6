import Foundation

extension AppSettingsStore {
    /// The file that holds this store's `UserDefaults` domain, where the library can know it;
    /// `nil` on Apple platforms, where the preferences daemon owns that file, and for an
    /// in-memory store.
    ///
    /// On Linux, swift-corelibs-foundation keeps a domain in
    /// `$XDG_CONFIG_HOME/<domain>.plist` (`$HOME/.config/<domain>.plist` when `XDG_CONFIG_HOME` is
    /// not an absolute path), where `<domain>` is the suite's name, or for ``standard`` the
    /// bundle identifier or else the process name (a command-line tool's executable name).
    /// Show it to a person who asks where their settings are:
    ///
    /// ```swift
    /// if let file = settings.settingsStore.domainFileURL { print("your settings: \(file.path)") }
    /// ```
    public var domainFileURL: URL? {
        (makeDomain() as? any DomainFileWriting)?.domainFileURL
    }

    /// On Linux, the file of the library's recovery copy of the set stored under `key`
    /// (`<configuration directory>/AppSettings/<domain>/<key>.archive`), written with every
    /// synchronization; `nil` on Apple platforms and for an in-memory store.
    /// `StoredSettingsInspector` (`AppSettingsStoredSets`) reads it.
    ///
    /// ```swift
    /// let copy = settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey)
    /// ```
    ///
    /// - Parameter key: The set's key, ``AppSettingsObject/userDefaultsKey`` of its objects.
    public func recoveryCopyURL(forKey key: String) -> URL? {
        (makeDomain() as? any RecoveryCopying)?.recoveryCopyURL(forKey: key)
    }

    /// Removes the whole store: a suite's persistent domain (an App Group's store: the group's
    /// suite) and, on Linux, its file and the library's recovery copies and lock file for it; for
    /// an in-memory store, every value it holds.
    ///
    /// For scratch suites in tests and previews:
    ///
    /// ```swift
    /// let store = AppSettingsStore.suite("Preview-" + UUID().uuidString)
    /// let settings = MySettings(store: store)
    /// defer { try? store.remove() }
    /// ```
    ///
    /// Live objects of the store are not told; they keep the values they hold.
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` (with the suite's name as the key)
    ///   when a file exists but cannot be removed;
    ///   ``AppSettingsError/invalidSuiteName(name:reason:)`` for a suite name that cannot be used
    ///   (one that could lead outside the configuration directory, one `UserDefaults` refuses), for
    ///   ``standard`` (the app's own defaults are not a scratch suite) and for a `UserDefaults` the
    ///   library cannot name; nothing is removed then.
    public func remove() throws {
        if let refusal { throw AppSettingsError.invalidSuiteName(name: suiteName ?? description, reason: refusal) }
        switch identity {
        case .suite(let name), .appGroup(let name):
            try StoreNames.check(suiteName: name)
            try PreferencesDomain.removeSuite(named: name)
        case .inMemory, .isolated:
            storage?.removeAll()
        case .standard:
            throw AppSettingsError.invalidSuiteName(
                name: description,
                reason:
                    "it is the app's own defaults, which remove() leaves alone: it removes suites and in-memory stores")
        case .unnamed:
            throw AppSettingsError.invalidSuiteName(
                name: description, reason: "the library cannot name the suite of this UserDefaults: use .suite(_:)")
        }
    }
}
