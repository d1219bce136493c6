import AppSettings
import Foundation
import Observation

/// `swift run Example tour`: every capability in a few lines, in a scratch suite removed afterwards.
enum Tour {
    static func run() async {
        let suiteName = "AppSettingsTour-\(UUID().uuidString)"
        let suite = UserDefaults(suiteName: suiteName)!
        defer { remove(suiteNamed: suiteName) }

        section("Developer defaults, validation and the const rule")
        let settings = ExampleSettings(userDefaults: suite)
        print("soundLevel starts at \(settings.soundLevel) (resetToDeveloperDefaults() override)")
        settings.soundLevel = 3
        print("soundLevel = 3 is clamped to \(settings.soundLevel) by validate:")
        settings.constLaunchCount += 1
        print("settingNames: \(settings.settingNames) (constLaunchCount is not stored)")

        section("Synchronize, then a second instance reads the same set")
        settings.theme = .dark
        settings.audio.muted = true
        attempt { try settings.synchronizeToUserDefaults() }
        let second = ExampleSettings(userDefaults: UserDefaults(suiteName: suiteName)!)
        print(
            "second instance: theme = \(second.theme), audio.muted = \(second.audio.muted), equal: \(second == settings)"
        )

        section("Revert unsaved changes, reset to developer defaults")
        settings.theme = .system
        print("unsaved change: theme = \(settings.theme), hasUnsavedChanges = \(settings.hasUnsavedChanges)")
        attempt { try settings.resetToUserDefaults() }
        print("after resetToUserDefaults(): theme = \(settings.theme)")
        settings.resetToDeveloperDefaults()
        print("after resetToDeveloperDefaults(): theme = \(settings.theme), soundLevel = \(settings.soundLevel)")

        section("Dictionary export and all-or-nothing import")
        print("dictionaryRepresentation()[\"window\"] = \(settings.dictionaryRepresentation()["window"] ?? "nil")")
        do {
            try settings.update(from: ["soundLevel": 0.2, "theme": "purple"])
        } catch {
            print("update(from:) refused: \(error)")
        }
        print("soundLevel unchanged: \(settings.soundLevel)")

        section("Observation, notifications and async changes")
        withObservationTracking {
            _ = settings.soundLevel
        } onChange: {
            print("Observation: soundLevel changed")
        }
        let observer = NotificationCenter.default.addObserver(
            forName: ExampleSettings.didChangeNotification,
            object: settings,
            queue: nil
        ) { notification in
            let names = notification.userInfo?[ExampleSettings.changedSettingNamesKey] as? [String] ?? []
            print("Notification: \(names) changed")
        }
        var changes = settings.changes.makeAsyncIterator()
        settings.soundLevel = 0.9
        print("AsyncStream: \(await changes.next().map { "\($0)" } ?? "ended")")
        NotificationCenter.default.removeObserver(observer)

        section("Damaged stored data: what the load used, and a backup")
        suite.set(Data("definitely not an archive".utf8), forKey: settings.userDefaultsKey)
        let damaged = ExampleSettings(userDefaults: suite)
        print("loaded: theme = \(damaged.theme); lastLoadError: \(damaged.lastLoadError.map { "\($0)" } ?? "none")")
        // Say what happened: on Linux the recovery copy of the last save answers when the domain's
        // bytes cannot be used (no error); otherwise the settings keep their developer defaults
        // and lastLoadError names the key.
        if damaged.lastLoadError == nil {
            let copy = damaged.settingsStore.recoveryCopyURL(forKey: damaged.userDefaultsKey)
            print("the recovery copy of the last save answered (\(copy?.path ?? "no file"))")
        } else {
            print("no recovery copy answered: developer defaults, and the error above")
        }
        damaged.theme = .dark
        attempt { try damaged.synchronizeToUserDefaults() }
        let backups = suite.dictionaryRepresentation().keys.filter {
            $0.hasPrefix(damaged.userDefaultsKey + ".unreadable")
        }
        print("the unreadable bytes were kept under \(backups.sorted())")
    }

    private static func attempt(_ body: () throws -> Void) {
        do { try body() } catch { print("error: \(error)") }
    }

    private static func section(_ title: String) {
        print("\n== \(title)")
    }

    /// Removes the scratch suite and, on Linux, its file and the library's recovery copy and lock file.
    private static func remove(suiteNamed name: String) {
        do {
            try AppSettingsStore.suite(name).remove()
        } catch {
            print("could not remove the scratch suite: \(error)")
        }
    }
}
