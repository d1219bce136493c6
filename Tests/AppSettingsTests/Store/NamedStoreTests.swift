import AppSettingsTesting
import Foundation
import Synchronization
import Testing

@testable import AppSettings

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// A set whose `shared` is declared with the pinned API: an App Group's store.
final class NamedStoreGroupSettings: AppSettingsObject, @unchecked Sendable {
    static let group = "group.AppSettingsTests-named-" + UUID().uuidString
    @Setting var widgetTheme = "light"
    override class var sharedStore: AppSettingsStore { .appGroup(group) }
}

/// A set that overrides `sharedUserDefaults` only, as before `sharedStore` existed.
final class NamedStoreLegacySettings: AppSettingsObject, @unchecked Sendable {
    static let group = "group.AppSettingsTests-legacy-" + UUID().uuidString
    @Setting var widgetTheme = "light"
    override class var sharedUserDefaults: UserDefaults { UserDefaults(appGroup: group) ?? .standard }
}

/// A `UserDefaults` that records every key set or removed through it (on the model, one that
/// behaves as Apple's: every change posts `didChangeNotification` on the writing thread).
#if APPLE_STAND_INS
    typealias RecordingBase = AppleUserDefaults
#else
    typealias RecordingBase = UserDefaults
#endif
final class RecordingUserDefaults: RecordingBase {
    let changedKeys = Mutex<[String]>([])

    override func set(_ value: Any?, forKey defaultName: String) {
        changedKeys.withLock { $0.append(defaultName) }
        super.set(value, forKey: defaultName)
    }

    override func removeObject(forKey defaultName: String) {
        changedKeys.withLock { $0.append(defaultName) }
        super.removeObject(forKey: defaultName)
    }
}

/// A set whose `shared` is created in the test below, in a suite an observer watches.
final class ObservedCreationSettings: AppSettingsObject, @unchecked Sendable {
    static let suiteName = "AppSettingsTests-observed-" + UUID().uuidString
    nonisolated(unsafe) static let suite = RecordingUserDefaults(suiteName: suiteName)!
    override class var sharedUserDefaults: UserDefaults { suite }
    @Setting var count = 0
}

/// The store is named, never guessed (issue 36): what a store is, and that the library never
/// writes into a user's suite to learn its name.
@Suite("Named stores")
struct NamedStoreTests {
    @Test func storesAreEqualByKindAndName() {
        let name = "AppSettingsTests-" + UUID().uuidString
        #expect(AppSettingsStore.suite(name) == .suite(name))
        #expect(AppSettingsStore.suite(name) != .appGroup(name), "a suite's store is not the group's")
        #expect(AppSettingsStore.appGroup(name) == .appGroup(name))
        #expect(AppSettingsStore.userDefaults(.standard) == .standard)
        #expect(AppSettingsStore.userDefaults(UserDefaults(appGroup: name)!) == .appGroup(name))
        #expect(AppSettingsStore.userDefaults(AppSettingsStore.suite(name).userDefaults) == .suite(name))
        #expect(AppSettingsStore.inMemory(name) == .inMemory(name))
        #expect(AppSettingsStore.inMemory(name) != .suite(name))
        // A UserDefaults the library was not told of cannot be named: it is itself only.
        let unnamed = UserDefaults(suiteName: name)!
        #expect(AppSettingsStore.userDefaults(unnamed) == .userDefaults(unnamed))
        #expect(AppSettingsStore.userDefaults(unnamed) != .userDefaults(UserDefaults(suiteName: name)!))
        #expect(AppSettingsStore.userDefaults(unnamed) != .suite(name))
        #expect(AppSettingsStore.appGroup(name).suiteName == name && AppSettingsStore.appGroup(name).isAppGroup)
        #expect(AppSettingsStore.standard.suiteName == nil && AppSettingsStore.userDefaults(unnamed).suiteName == nil)
        #expect("\(AppSettingsStore.suite("com.example.settings"))" == ".suite(\"com.example.settings\")")
    }

    @Test func sharedStoreAndSharedUserDefaultsFollowEachOther() {
        #expect(MySettings.sharedStore == .standard)
        #expect(MySettings.sharedUserDefaults === UserDefaults.standard)
        #expect(NamedStoreGroupSettings.sharedStore == .appGroup(NamedStoreGroupSettings.group))
        #expect(
            AppSettingsStore.userDefaults(NamedStoreGroupSettings.sharedUserDefaults)
                == .appGroup(NamedStoreGroupSettings.group))
        #expect(NamedStoreLegacySettings.sharedStore == .appGroup(NamedStoreLegacySettings.group))
    }

    @Test func aSuiteNameThatCannotBeUsedIsRefusedNotReplaced() throws {
        for name in ["a/b", "", "x..y"] {
            let (settings, lines) = AppSettingsLog.capture { MySettings(store: .suite(name)) }
            #expect(lines.count == 1)
            guard case .invalidSuiteName? = settings.lastLoadError else {
                Issue.record("\(name): \(String(describing: settings.lastLoadError))")
                continue
            }
            settings.soundLevel = 0.1
            #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
        }
    }

    /// `remove()`: a suite's domain goes with the library's files for it, an in-memory store is
    /// emptied, and what is not a scratch suite (the app's own defaults, a `UserDefaults` the
    /// library cannot name, a name that cannot be used) is refused, removing nothing.
    @Test func removingAStore() throws {
        let name = "AppSettingsTests-remove-" + UUID().uuidString
        let suite = AppSettingsStore.suite(name)
        let settings = MySettings(store: suite)
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        // Linux: the domain file and the recovery copy; Apple platforms name none.
        let files = [suite.domainFileURL, suite.recoveryCopyURL(forKey: settings.userDefaultsKey)].compactMap { $0 }
        #expect(files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        try suite.remove()
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        #expect(MySettings(store: suite).theme == .light)

        let memory = AppSettingsStore.inMemory(name)
        defer { InMemoryStorage.remove(named: name) }
        let inMemory = MySettings(store: memory)
        inMemory.theme = .dark
        try inMemory.synchronizeToUserDefaults()
        try memory.remove()
        #expect(MySettings(store: memory).theme == .light)

        let unnamed = UserDefaults(suiteName: name)!
        for refused in [AppSettingsStore.standard, .userDefaults(unnamed), .suite("a/b"), .suite("")] {
            do {
                try refused.remove()
                Issue.record("\(refused) was removed")
            } catch AppSettingsError.invalidSuiteName(_, _) {}
        }
    }

    /// Every key set or removed in the suite, over creation, save, revert and a second object's
    /// save: the set's own, nothing else (the library once set and removed a probe key there).
    @Test func noKeyButTheSetsOwnIsSetOrRemovedInTheSuite() throws {
        let suite = TemporarySuite()
        defer { withExtendedLifetime(suite) {} }
        // The suite's name is known to the process as an App Group's, as an app's is.
        _ = UserDefaults(appGroup: suite.name)
        let recording = RecordingUserDefaults(suiteName: suite.name)!
        let settings = MySettings(userDefaults: recording)
        settings.soundLevel = 0.3
        try settings.synchronizeToUserDefaults()
        try settings.resetToUserDefaults()
        let second = MySettings(userDefaults: recording)
        second.dontDimScreen = true
        try second.synchronizeToUserDefaults()
        let otherRecording = RecordingUserDefaults(suiteName: suite.name)!
        let third = MySettings(userDefaults: otherRecording)
        third.theme = .dark
        try third.synchronizeToUserDefaults()
        let changed = recording.changedKeys.withLock { $0 } + otherRecording.changedKeys.withLock { $0 }
        #expect(Set(changed).subtracting([settings.userDefaultsKey]) == [])
        #expect(MySettings(userDefaults: suite.another()).soundLevel == 0.3)
    }

    /// An observer of `didChangeNotification` (queue `nil`: on the writing thread) that reads
    /// `shared` while `shared` is being created finishes: creating `shared` writes nothing.
    @Test func anObserverReadingSharedWhileItIsCreatedFinishes() throws {
        defer { TemporarySuite.remove(suiteNamed: ObservedCreationSettings.suiteName) }
        _ = UserDefaults(appGroup: ObservedCreationSettings.suiteName)
        let reads = Mutex(0)
        let observer = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: ObservedCreationSettings.suite, queue: nil
        ) { _ in
            _ = ObservedCreationSettings.shared.count
            reads.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let created = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = ObservedCreationSettings.shared
            created.signal()
        }
        thread.start()
        #expect(created.wait(timeout: .now() + 20) == .success, "creating shared never finished")
        #expect(ObservedCreationSettings.suite.changedKeys.withLock { $0 } == [], "creating shared wrote the suite")
        ObservedCreationSettings.shared.count = 1
        try ObservedCreationSettings.shared.synchronizeToUserDefaults()
        let changed = Set(ObservedCreationSettings.suite.changedKeys.withLock { $0 })
        #expect(changed.subtracting([ObservedCreationSettings.shared.userDefaultsKey]) == [])
    }
}
