import Foundation

extension UserDefaults {
    /// The `UserDefaults` of an App Group, shared by an app and its extensions, made so that
    /// AppSettings can serialize their writers.
    ///
    /// Use it wherever you would write `UserDefaults(suiteName: "group.…")`:
    ///
    /// ```swift
    /// final class SharedSettings: AppSettingsObject, @unchecked Sendable {
    ///     @Setting var widgetTheme = "light"
    ///     override class var sharedUserDefaults: UserDefaults {
    ///         UserDefaults(appGroup: "group.com.example.app") ?? .standard
    ///     }
    /// }
    /// ```
    ///
    /// On Apple platforms a synchronization then takes a lock file in the group's container
    /// (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`) around its re-read,
    /// merge and write, so the app and its extensions take turns, and its notices name the suite.
    /// The lock is held only under a background-task assertion: a process being suspended writes
    /// without it rather than risk being terminated for holding a lock in a shared container.
    /// A suite made with `UserDefaults(suiteName:)` works too, but its writers are serialized
    /// within one process only (`UserDefaults` does not say which suite it reads). On Linux both
    /// are the same: every writer of a domain takes the domain's lock file.
    ///
    /// - Parameter identifier: The App Group's identifier, `group.` followed by a reverse-DNS name.
    /// - Returns: `nil` where `UserDefaults(suiteName:)` returns `nil` (for the app's own bundle
    ///   identifier or `NSGlobalDomain`).
    public convenience init?(appGroup identifier: String) {
        self.init(suiteName: identifier)
        SuiteNames.record(identifier, for: self)
    }
}
