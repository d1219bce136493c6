import Foundation

/// The set's files and a suite's removal as 0.1.0 had them, before they moved to
/// ``AppSettingsStore``: kept so that code written for it still builds.
extension AppSettingsObject {
    /// The file of the `UserDefaults` domain this set is stored in, where the library can know it;
    /// `nil` on Apple platforms. The same as ``AppSettingsStore/domainFileURL`` of ``settingsStore``.
    @available(*, deprecated, renamed: "settingsStore.domainFileURL")
    public final var domainFileURL: URL? {
        settingsStore.domainFileURL
    }

    /// On Linux, the file of this set's recovery copy; `nil` on Apple platforms. The same as
    /// ``AppSettingsStore/recoveryCopyURL(forKey:)`` of ``settingsStore`` for ``userDefaultsKey``.
    @available(*, deprecated, message: "use settingsStore.recoveryCopyURL(forKey: userDefaultsKey)")
    public final var recoveryCopyURL: URL? {
        settingsStore.recoveryCopyURL(forKey: userDefaultsKey)
    }

    /// Removes a whole `UserDefaults` suite: ``AppSettingsStore/remove()`` of
    /// ``AppSettingsStore/suite(_:)``, which documents what it throws.
    @available(*, deprecated, message: "use AppSettingsStore.suite(suiteName).remove()")
    public static func removeSuite(named suiteName: String) throws {
        try AppSettingsStore.suite(suiteName).remove()
    }
}
