import Foundation

// The settings shown in the system Settings app (`@Setting(inSettingsApp: true)`): the page
// (`settingsBundlePage()`, made in `Internal/SettingsApp`). See <doc:SettingsAppPage>.

extension AppSettingsObject {
    /// The `Settings.bundle/Root.plist` page of this class's settings declared with
    /// `inSettingsApp: true`, for the system Settings app.
    ///
    /// One element per shown setting, in declaration order (Apple's Settings Application Schema:
    /// `PreferenceSpecifiers`), keyed `"<userDefaultsKeyPostfix>.<stored name>"`, titled by its
    /// description (else its name in words), with its developer default as `DefaultValue`: a
    /// `Bool` is a `PSToggleSwitchSpecifier`, a number with `in:` a `PSSliderSpecifier` over the
    /// range, a `CaseIterable` choice a `PSMultiValueSpecifier`, a `String` or a number without a
    /// range a `PSTextFieldSpecifier` (a numeric keyboard for numbers). Settings of nested settings
    /// objects are not shown.
    ///
    /// ```swift
    /// try MySettings.settingsBundlePage()
    ///     .write(to: URL(fileURLWithPath: "Settings.bundle/Root.plist"))
    /// ```
    ///
    /// - Returns: The page as an XML property list.
    public static func settingsBundlePage() -> Data {
        SettingsBundlePage.document(of: self, appGroup: nil)
    }

    /// The `Settings.bundle/Root.plist` page for settings kept in an App Group's suite
    /// (``AppSettingsObject/init(userDefaults:)`` with `UserDefaults(appGroup:)`): as
    /// ``settingsBundlePage()``, naming the group in `ApplicationGroupContainerIdentifier`, so
    /// that the Settings app reads and writes the group's preferences.
    ///
    /// - Parameter appGroup: The App Group's identifier (`group.com.example.app`).
    /// - Returns: The page as an XML property list.
    public static func settingsBundlePage(appGroup: String) -> Data {
        SettingsBundlePage.document(of: self, appGroup: appGroup)
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

/// Takes what the Settings app wrote when the app returns to the foreground: on iOS the user
/// changes the Settings app's values while the app is in the background, and Apple's
/// `UserDefaults.didChangeNotification` is "Posted when the current process changes the value of
/// a setting ... If a different process changes your app's settings, the system doesn't generate
/// this notification". UIKit's `UIApplication.willEnterForegroundNotification` ("Posted shortly
/// before an app leaves the background state on its way to becoming the active app") is observed
/// by name, Foundation only, as `StoreAvailabilityWatcher` observes protected data. Started by
/// the first live object that shows settings; elsewhere nothing posts it.
enum SettingsAppForegroundWatcher {
    private static let queue = DispatchQueue(label: "AppSettings.settingsAppForeground")
    static let notificationName = Notification.Name("UIApplicationWillEnterForegroundNotification")

    static func start() { _ = started }

    private static let started: Bool = {
        // Posted on the main thread: the objects look at their keys on a queue of their own.
        _ = NotificationCenter.default.addObserver(forName: notificationName, object: nil, queue: nil) { _ in
            queue.async {
                for object in StoreRegistry.liveObjects(where: \.settingsApp.showsAny) {
                    object.settingsApp.takeWrittenValues(refresh: true)
                }
            }
        }
        return true
    }()
}
