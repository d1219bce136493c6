import Foundation

// The settings shown in the system Settings app (`@Setting(inSettingsApp: true)`): the page
// (`settingsBundlePage(appGroup:)`, made in `Internal/SettingsApp`). See <doc:SettingsAppPage>.

extension AppSettingsObject {
    /// The `Settings.bundle/Root.plist` page of this class's settings declared with
    /// `inSettingsApp: true`, for the system Settings app: for the App Group `appGroup`, else the
    /// App Group of the class's ``sharedStore`` when it is one, else for the app's own defaults.
    /// A page for an App Group names it in `ApplicationGroupContainerIdentifier`, so that the
    /// Settings app reads and writes the group's preferences.
    ///
    /// One element per shown setting, in declaration order (Apple's Settings Application Schema:
    /// `PreferenceSpecifiers`), keyed `"<userDefaultsKeyPostfix>.<stored name>"`, titled by its
    /// description (else its name in words), with its developer default as `DefaultValue`: a
    /// `Bool` is a `PSToggleSwitchSpecifier`, a number with `in:` a `PSSliderSpecifier` over the
    /// range under a group titled as it, a `CaseIterable` choice a `PSMultiValueSpecifier`, a
    /// `String` or a number without a range a `PSTextFieldSpecifier` (a numeric keyboard for
    /// numbers). Settings of nested settings objects are not shown. The titles are localized by
    /// `Root.strings` (``settingsBundleStrings()``), which the page names as its `StringsTable`.
    ///
    /// ```swift
    /// try MySettings.settingsBundlePage()
    ///     .write(to: URL(fileURLWithPath: "Settings.bundle/Root.plist"))
    /// try MySettings.settingsBundleStrings()
    ///     .write(to: URL(fileURLWithPath: "Settings.bundle/en.lproj/Root.strings"))
    /// ```
    ///
    /// - Parameter appGroup: The App Group's identifier (`group.com.example.app`) for settings kept
    ///   in its suite (``AppSettingsStore/appGroup(_:)``).
    /// - Returns: The page as an XML property list.
    /// - Throws: ``AppSettingsError/invalidSuiteName(name:reason:)`` when the Settings app's values
    ///   could never reach the class's set: its ``sharedStore`` is a suite that is no App Group's or
    ///   another group (the Settings app writes the app's own defaults or the group the page
    ///   names), or `appGroup` is no App Group's identifier (`group.<name>`).
    public static func settingsBundlePage(appGroup: String? = nil) throws(AppSettingsError) -> Data {
        try SettingsBundlePage.document(of: self, appGroup: appGroup)
    }

    /// The page's `Root.strings`: every title it shows, in the development language, each its own
    /// key, as `Settings.bundle/en.lproj/Root.strings` (UTF-16). Copy it into another language's
    /// folder (`de.lproj`) and translate the values there.
    ///
    /// - Returns: The strings file.
    public static func settingsBundleStrings() -> Data {
        SettingsBundlePage.strings(items: SettingsBundlePage.items(of: self))
    }

    /// This object's side of the Settings app (``SettingsAppBridge``).
    var settingsApp: SettingsAppBridge { SettingsAppBridge(object: self) }
}

extension AnySettingSlot {
    /// What the schema says of a setting shown in the Settings app: its position, beside the
    /// declared titles (its developer default is the schema's: `SettingsForms.schemaProperties`).
    var settingsAppEntry: SettingsAppEntry? {
        guard var entry = rules.settingsApp else { return nil }
        entry.position = index
        return entry
    }
}

// MARK: - Both ways

// What the Settings app writes under a shown key is taken as an assignment made when the object
// sees it: at a load, at the start of a save, when the suite changes (the store watcher's notice)
// and when the app returns to the foreground. An assignment made after that wins (it is later);
// one made before loses to it. A save writes every shown setting's value under its key, with the
// set, under the store's lock.

extension AppSettingsObject {
    /// The values the Settings app wrote under the keys of shown settings that the settings did
    /// not take since the last load (each with the reason): not of the setting's type, a raw value
    /// that names no case, or one its conversion refused.
    ///
    /// ```swift
    /// for ignored in settings.ignoredSettingsAppValues { print(ignored) }
    /// // Settings app value MySettings.theme = sepia for 'theme' ignored: …
    /// ```
    public final var ignoredSettingsAppValues: [IgnoredSettingsAppValue] {
        if let parent = announcer.parent { return parent.ignoredSettingsAppValues }
        return settingsApp.ignoredValues
    }
}

/// Takes what the Settings app wrote, on two notices, observed by name (Foundation only, as
/// `StoreAvailabilityWatcher` observes protected data), by the first live object that shows settings:
/// - UIKit's `UIApplication.willEnterForegroundNotification` ("Posted shortly before an app leaves
///   the background state on its way to becoming the active app"): on iOS the user changes the
///   Settings app's values while the app is in the background, and Apple's
///   `UserDefaults.didChangeNotification` is "Posted when the current process changes the value of
///   a setting ... If a different process changes your app's settings, the system doesn't generate
///   this notification";
/// - `UserDefaults.didChangeNotification` itself: "If your iOS app supports Mac Catalyst, the
///   system uses your app's Settings bundle" for a settings window of the app ("Building a
///   Settings bundle for your app"), whose edits are this process's own changes, as are the app's
///   own writes of a shown key; no foreground notice follows them, and their keys hold a `.`, which
///   key-value observation reads as a path. Observed on Apple platforms only
///   (`SettingsAppBridge.editsInProcess`).
///
/// Neither notice is acted on where it is posted (a change is posted on the writing thread, a save's
/// under the store's lock): the look is queued on a queue of its own, once for every notice that
/// comes before it begins.
enum SettingsAppForegroundWatcher {
    private static let queue = DispatchQueue(label: "AppSettings.settingsAppForeground")
    /// Whether a look is queued and not begun, and whether it re-reads the domains from disk.
    private static let queued = Protected<Bool?>(nil)

    static func start() { _ = started }

    private static let started: Bool = {
        let center = NotificationCenter.default
        _ = center.addObserver(forName: SystemCloudEnvironment.willEnterForeground, object: nil, queue: nil) { _ in
            look(refresh: true)
        }
        // Where the Settings app's window can edit in this process (Apple platforms).
        guard SettingsAppBridge.editsInProcess else { return true }
        _ = center.addObserver(forName: UserDefaults.didChangeNotification, object: nil, queue: nil) { _ in
            // This process's own change: nothing to re-read from disk. The library's own write posts
            // it with the keys written and the set not yet: no edit, and no look half-way.
            guard !HeldLocks.isHeld else { return }
            look(refresh: false)
        }
        return true
    }()

    private static func look(refresh: Bool) {
        let isQueued = queued.withLock { queued in
            defer { queued = (queued ?? false) || refresh }
            return queued != nil
        }
        guard !isQueued else { return }
        queue.async {
            let refresh = queued.withLock { queued in
                defer { queued = nil }
                return queued ?? true
            }
            for object in StoreRegistry.liveObjects(where: \.settingsApp.showsAny) {
                object.settingsApp.takeWrittenValues(refresh: refresh)
            }
        }
    }
}
