import Foundation

extension UserDefaults {
    /// The `UserDefaults` of an App Group, shared by an app and its extensions, made so that
    /// AppSettings knows it for the group's store (``AppSettingsStore/appGroup(_:)``).
    ///
    /// `MySettings(userDefaults: UserDefaults(appGroup: id)!)` is `MySettings(store: .appGroup(id))`;
    /// a class written before ``AppSettingsObject/sharedStore`` existed keeps working:
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
    /// (`FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`, touched at the first
    /// write) around its re-read, merge and write, so the app and its extensions take turns, and its
    /// notices name the suite. The lock is held only under a background-task assertion: a process
    /// being suspended writes without it rather than risk being terminated for holding a lock in a
    /// shared container.
    ///
    /// Apple platforms do not say which suite a `UserDefaults` reads, and the library never writes
    /// into one to find out: a `UserDefaults(suiteName:)` of the group's suite is not known for it,
    /// and is serialized within the process only (its notices reach only processes of the same
    /// app). Use this initializer, or ``AppSettingsStore/appGroup(_:)``, in every process of the
    /// group. On Linux every `UserDefaults` of a domain is the same: every writer takes the domain's
    /// lock file.
    ///
    /// - Parameter identifier: The App Group's identifier as its entitlement spells it: `group.`
    ///   followed by a name, or on macOS also the team identifier, a dot and a name
    ///   (`ABCDE12345.com.example.app`).
    /// - Returns: `nil` where `UserDefaults(suiteName:)` returns `nil` (for the app's own bundle
    ///   identifier or `NSGlobalDomain`).
    public convenience init?(appGroup identifier: String) {
        self.init(suiteName: identifier)
        SuiteNames.record(identifier, appGroup: true, for: self)
    }

    /// `UserDefaults(suiteName:)`, with the suite's name recorded for the library: what the
    /// `appsettings` tool's `--suite` opens, so that on Apple platforms its notices name the suite
    /// (an App Group's suite, when this process declared it one, gets the group's lock file too).
    package convenience init?(recordedSuite name: String) {
        self.init(suiteName: name)
        SuiteNames.record(name, appGroup: false, for: self)
    }
}
