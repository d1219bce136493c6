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
    ///
    /// Apple platforms do not say which suite a `UserDefaults` reads, so the library learns the
    /// group's name here. Once a process made the group's suite this way, a `UserDefaults` of it
    /// made otherwise in that process (`UserDefaults(suiteName:)`, in a settings object or the
    /// tool) is recognized too, and shares the lock file and the notice: the library sets and
    /// removes a key of its own there once (`AppSettings.suiteProbe.<n>`) and asks which recorded
    /// suite holds it. In a process that never made the suite with this initializer, a
    /// `UserDefaults(suiteName:)` of it is serialized within the process only, and its notices
    /// reach only processes of the same app. On Linux every `UserDefaults` of a domain is the same:
    /// every writer takes the domain's lock file.
    ///
    /// - Parameter identifier: The App Group's identifier, `group.` followed by a reverse-DNS name.
    /// - Returns: `nil` where `UserDefaults(suiteName:)` returns `nil` (for the app's own bundle
    ///   identifier or `NSGlobalDomain`).
    public convenience init?(appGroup identifier: String) {
        self.init(suiteName: identifier)
        SuiteNames.record(identifier, appGroup: true, for: self)
    }

    /// `UserDefaults(suiteName:)`, with the suite's name recorded for the library: what the
    /// `appsettings` tool's `--suite` opens, so that on Apple platforms its notices name the suite
    /// (an App Group's suite, when this process made it with `UserDefaults(appGroup:)`, gets the
    /// group's lock file too).
    package convenience init?(recordedSuite name: String) {
        self.init(suiteName: name)
        SuiteNames.record(name, appGroup: false, for: self)
    }
}
