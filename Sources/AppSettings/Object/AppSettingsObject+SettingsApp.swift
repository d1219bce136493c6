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
        settingsBundlePage(appGroupIdentifier: nil)
    }

    /// The `Settings.bundle/Root.plist` page for settings kept in an App Group's suite
    /// (``AppSettingsObject/init(userDefaults:)`` with `UserDefaults(appGroup:)`): as
    /// ``settingsBundlePage()``, naming the group in `ApplicationGroupContainerIdentifier`, so
    /// that the Settings app reads and writes the group's preferences.
    ///
    /// - Parameter appGroup: The App Group's identifier (`group.com.example.app`).
    /// - Returns: The page as an XML property list.
    public static func settingsBundlePage(appGroup: String) -> Data {
        settingsBundlePage(appGroupIdentifier: appGroup)
    }

    private static func settingsBundlePage(appGroupIdentifier: String?) -> Data {
        let object = Self(userDefaults: ScratchCopyDefaults.describingClass)
        let items = SettingsBundlePage.items(
            postfix: object.settingsKey.postfix, properties: object.schemaProperties())
        return SettingsBundlePage.document(items: items, appGroup: appGroupIdentifier)
    }

    /// The settings this object shows in the Settings app, with their keys and controls.
    final var settingsAppSlots: [(slot: AnySettingSlot, key: String, control: SettingsAppControl)] {
        slots.compactMap { slot in
            guard !slot.isConstant, slot.nestedObject == nil, let entry = slot.settingsAppEntry,
                let control = SettingsAppControl(node: slot.schemaNode, range: slot.rules.range, entry: entry)
            else { return nil }
            return (slot, settingsKey.settingsAppKey(of: slot.name), control)
        }
    }
}

extension AnySettingSlot {
    /// What the schema says of a setting shown in the Settings app: its position and developer
    /// default (in the form a stored schema reads back), beside the declared titles.
    var settingsAppEntry: SettingsAppEntry? {
        guard var entry = rules.settingsApp else { return nil }
        entry.position = index
        entry.defaultValue = defaultJSONForm.flatMap { JSONForm.storedValue(fromJSON: JSONForm.jsonValue($0)) }
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
        if let parent = embeddingParent { return parent.ignoredSettingsAppValues }
        return _state.withLock { $0.settingsApp.ignored }
    }

    /// Whether the class declares a setting with `inSettingsApp: true`.
    final var showsSettingsInSettingsApp: Bool {
        slots.contains { $0.rules.settingsApp != nil }
    }

    /// Takes what the Settings app wrote under the shown keys since this object last looked,
    /// each value through its setting's conversion, `in:`, choices and `validate:` like an
    /// assignment (a change, unsaved until the next save); a value that does not fit is listed in
    /// ``ignoredSettingsAppValues``. A published object announces what changed.
    final func takeSettingsAppValues(refresh: Bool) {
        guard showsSettingsInSettingsApp, embeddingParent == nil, !settingsKey.hasEmptyPostfix else { return }
        let shown = settingsAppSlots
        let found: [String: Any]
        do {
            found = try store.storedObjects(forKeys: shown.map(\.key), refresh: refresh)
        } catch {
            // The set's own read reports an unavailable store; the keys are looked at again later.
            return
        }
        let (base, seen) = _state.withLock { ($0.stored.values, $0.settingsApp.seen) }
        var newlySeen: [String: StoredValue] = [:]
        var taken: [(slot: AnySettingSlot, value: Any)] = []
        var ignored: [IgnoredSettingsAppValue] = []
        for (slot, key, control) in shown {
            guard let object = found[key] else { continue }
            let asFound = StoredValue(propertyListValue: object) ?? .string(String(describing: object))
            guard asFound != seen[slot.name] else { continue }
            newlySeen[slot.name] = asFound
            do {
                let stored = try control.storedValue(fromSettingsApp: object)
                // What the set holds already (the keys hold what the last save wrote).
                guard stored != base[slot.name] else { continue }
                taken.append((slot, try slot.decode(stored).value))
            } catch {
                ignored.append(
                    IgnoredSettingsAppValue(
                        setting: slot.name, key: key, value: JSONForm.description(of: asFound),
                        reason: "\(error)"))
            }
        }
        guard !newlySeen.isEmpty else { return }
        let changed = _state.withLock { state -> [Int] in
            state.settingsApp.seen.merge(newlySeen) { $1 }
            state.settingsApp.ignored += ignored
            var changed: [Int] = []
            for (slot, value) in taken where slot.assign(value) { changed.append(slot.index) }
            state.changes.recordChange(of: changed)
            return changed
        }
        if isPublished { announce(changed) }
    }

    /// The suite changed (another process wrote it): what the Settings app wrote is taken.
    final func settingsAppSuiteDidChange() {
        takeSettingsAppValues(refresh: true)
    }

    /// `write` with the values of the shown settings it stores, each under its key.
    final func showingSettingsAppValues(
        _ write: SettingsStore.Write<WriteDecision>
    ) -> SettingsStore.Write<WriteDecision> {
        guard showsSettingsInSettingsApp else { return write }
        var write = write
        for (slot, key, control) in settingsAppSlots {
            guard let stored = write.decision.settings[slot.name],
                let value = control.settingsAppValue(of: stored.jsonForm)
            else { continue }
            write.shownValues[key] = value
        }
        return write
    }

    /// After a save: the shown keys hold what was written.
    final func settingsAppDidSave() {
        guard showsSettingsInSettingsApp else { return }
        _state.withLock { $0.settingsApp.seen = [:] }
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
                for object in StoreRegistry.liveObjects(where: \.showsSettingsInSettingsApp) {
                    object.takeSettingsAppValues(refresh: true)
                }
            }
        }
        return true
    }()
}
