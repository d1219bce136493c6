import Foundation

/// The files of a set and the removal of a suite, as they were before they moved to the store
/// (``AppSettingsStore``), which knows its kind and its name. Kept so that code written for 0.1.0
/// still builds.
extension AppSettingsObject {
    /// The file that holds the `UserDefaults` domain this set is stored in, where the library can
    /// know it; `nil` on Apple platforms. The same as ``AppSettingsStore/domainFileURL`` of
    /// ``settingsStore``.
    @available(*, deprecated, renamed: "settingsStore.domainFileURL")
    public final var domainFileURL: URL? {
        settingsStore.domainFileURL
    }

    /// On Linux, the file that holds the library's recovery copy of this set; `nil` on Apple
    /// platforms. The same as ``AppSettingsStore/recoveryCopyURL(forKey:)`` of ``settingsStore``
    /// for ``userDefaultsKey``.
    @available(*, deprecated, message: "use settingsStore.recoveryCopyURL(forKey: userDefaultsKey)")
    public final var recoveryCopyURL: URL? {
        settingsStore.recoveryCopyURL(forKey: userDefaultsKey)
    }

    /// Removes a whole `UserDefaults` suite: ``AppSettingsStore/remove()`` of
    /// ``AppSettingsStore/suite(_:)``.
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` (with the suite's name as the key)
    ///   when a file exists but cannot be removed;
    ///   ``AppSettingsError/invalidSuiteName(name:reason:)`` for a name that cannot be used
    ///   (nothing is removed).
    @available(*, deprecated, message: "use AppSettingsStore.suite(suiteName).remove()")
    public static func removeSuite(named suiteName: String) throws {
        try AppSettingsStore.suite(suiteName).remove()
    }
}
