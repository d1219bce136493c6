@_spi(AppSettingsTool) import AppSettingsStoredSets
import AppleStandIns
import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

// The findings of issue 26, each on the model of Apple's behaviour (AppleBehaviour.swift): every
// test here failed on the model before its fix. In `AppleBranchTests` (serialized): the model's
// process state is global.

/// A set of its own per test that may leave threads stuck on its locks when it fails.
final class DeadlockSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var count = 0
}

final class WaitingSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var count = 0
}

final class SmallNumbers: AppSettingsObject, @unchecked Sendable {
    @Setting var level: Int8 = 0
    @Setting var flag = false
}

extension Suite {
    /// A `UserDefaults` of the suite that behaves as Apple's.
    func model() -> AppleUserDefaults { AppleUserDefaults(suiteName: name)! }
    /// The same, made as an App Group's suite.
    func modelAppGroup() -> UserDefaults { AppleUserDefaults(appGroup: name)! }
}

extension AppleProcess {
    /// The device locked, its preferences under `complete` (a container of Xcode's Data Protection
    /// capability): a domain reads empty until `unlock()`.
    static func lockDevice() {
        preferencesProtection = .complete
        lockState = .locked
    }

    /// The device as a test found it, in a new launch that remembers nothing of this one.
    static func restoreDevice() {
        lockState = .unlocked
        preferencesProtection = .completeUntilFirstUserAuthentication
        relaunch()
        ProtectedData.domainsReadWhileUnavailable.withLock { $0.removeAll() }
    }
}

/// Starts `bodies` on threads of their own and waits for them for at most `seconds`; whether
/// all finished.
func runThreads(_ bodies: [@Sendable () -> Void], waitingAtMost seconds: Double) -> Bool {
    let threads = bodies.map { Thread(block: $0) }
    for thread in threads { thread.start() }
    let deadline = Date().addingTimeInterval(seconds)
    while threads.contains(where: { !$0.isFinished }), Date() < deadline { usleep(10_000) }
    return threads.allSatisfy(\.isFinished)
}

extension AppleBranchTests {
    // MARK: The model itself

    @Test func theModelPostsEveryChangeOnTheWritingThreadAndPersistsIt() throws {
        let suite = Suite()
        nonisolated(unsafe) let defaults = suite.model()
        let posts = Protected<[Bool]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: defaults, queue: nil
        ) { _ in posts.withLock { $0.append(Thread.isMainThread) } }
        defer { NotificationCenter.default.removeObserver(observer) }
        let finished = runThreads(
            [
                {
                    defaults.set(1, forKey: "a")
                    defaults.removeObject(forKey: "a")
                    #expect(posts.withLock { $0 } == [false, false], "posted before set returned, on this thread")
                }
            ], waitingAtMost: 10)
        #expect(finished)
        defaults.set(2, forKey: "b")
        let file = try #require(defaults.preferencesFileURL)
        func stored() -> Int? {
            let data = try? Data(contentsOf: file)
            let domain = data.flatMap { try? PropertyListSerialization.propertyList(from: $0, format: nil) }
            return (domain as? [String: Any])?["b"] as? Int
        }
        for _ in 0..<500 where stored() != 2 { usleep(10_000) }
        #expect(stored() == 2, "on disk without synchronize()")
    }

    @Test func theModelBridgesNumbersAsDarwin() {
        let types = [DarwinBridging.number(Int8(5)), DarwinBridging.number(true), DarwinBridging.number(5)]
            .map { $0.map(DarwinBridging.objCType(of:)) ?? "none" }
        #expect(types[0] == "c" && types[1] == "c", "an Int8 and a Bool are both chars")
        #expect(types[2] != "c")
    }

    @Test func theModelsProtectedDataReadsEmptyWhileItsFileExists() throws {
        let suite = Suite()
        let defaults = suite.model()
        defaults.set(1, forKey: "a")
        #expect(defaults.synchronize(), "waits for the file to be written")
        defer { AppleProcess.restoreDevice() }
        AppleProcess.lockState = .locked
        #expect(defaults.integer(forKey: "a") == 1, "the default class opens while locked after the first unlock")
        AppleProcess.lockDevice()
        #expect(defaults.object(forKey: "a") == nil, "a container under complete")
        #expect(FileManager.default.fileExists(atPath: try #require(defaults.preferencesFileURL).path))
        AppleProcess.unlock()
        #expect(defaults.integer(forKey: "a") == 1)
    }

    @Test func theModelsDomainReadBeforeTheFirstUnlockStaysEmptyUntilRelaunched() throws {
        let suite = Suite()
        let defaults = suite.model()
        defaults.set(1, forKey: "a")
        #expect(defaults.synchronize())
        defer { AppleProcess.restoreDevice() }
        AppleProcess.lockState = .beforeFirstUnlock
        #expect(defaults.object(forKey: "a") == nil)
        AppleProcess.unlock()
        #expect(defaults.object(forKey: "a") == nil, "read before the first unlock: empty in this launch")
        #expect(suite.model().object(forKey: "a") == nil, "whatever UserDefaults reads it")
        AppleProcess.relaunch()
        #expect(defaults.integer(forKey: "a") == 1)
    }

    // MARK: Finding 1: the deadlock, and a plain write waiting for a save

    @Test func removeAgainstSynchronizeUnderPostingUserDefaultsFinishes() {
        let suite = Suite()
        let remover = DeadlockSettings(userDefaults: suite.model())
        let writer = DeadlockSettings(userDefaults: suite.model())
        nonisolated(unsafe) let plain = suite.model()
        let end = Date().addingTimeInterval(2)
        let finished = runThreads(
            [
                { while Date() < end { try? remover.removeFromUserDefaults() } },
                {
                    while Date() < end {
                        writer.count += 1
                        try? writer.synchronizeToUserDefaults()
                    }
                },
                {
                    var count = 0
                    while Date() < end {
                        count += 1
                        plain.set(count, forKey: "another key")
                    }
                },
            ], waitingAtMost: 30)
        #expect(finished, "remove, synchronize and a plain write of another key deadlocked")
    }

    @Test func aPlainWriteNeverWaitsForASaveInFlight() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let settings = WaitingSettings(userDefaults: suite.modelAppGroup())
        // Another process of the group holds the set's lock file: the save waits for it.
        let lockFile = AppleProcess.containersDirectory.appendingPathComponent(suite.name)
            .appendingPathComponent("Library/Application Support/AppSettings/AppSettings.WaitingSettings.lock")
        try FileManager.default.createDirectory(
            at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT, 0o600)
        #expect(flock(descriptor, LOCK_EX) == 0)
        settings.count = 1
        let saving = Thread { try? settings.synchronizeToUserDefaults() }
        saving.start()
        usleep(200_000)  // the save is waiting for the lock file now
        nonisolated(unsafe) let plain = suite.model()
        let finished = runThreads([{ plain.set(1, forKey: "another key") }], waitingAtMost: 10)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        while !saving.isFinished { usleep(10_000) }
        #expect(finished, "a plain UserDefaults write waited for a save in flight")
    }

    // MARK: Finding 2: Int8

    @Test func anInt8IsAnIntegerAsOnDarwin() throws {
        let suite = Suite()
        let settings = SmallNumbers(userDefaults: suite.model())
        try settings.update(from: ["level": Int8(5), "flag": true])
        #expect(settings.level == 5)
        #expect(settings.flag)
        // As an Objective-C dictionary hands it over: an NSNumber made from a char.
        try settings.update(from: try #require(DarwinBridging.bridged(["level": Int8(7)]) as? [String: Any]))
        #expect(settings.level == 7)
        #expect(StoredValue(propertyListValue: DarwinBridging.number(Int8(1))!) == .integer(1))
        #expect(StoredValue(propertyListValue: DarwinBridging.number(true)!) == .bool(true))
    }

    // MARK: Finding 3: containerURL on macOS

    @Test func aMacAppNotEntitledToTheGroupStillSaves() throws {
        let suite = Suite()
        AppleProcess.platform = .macOS
        defer { AppleProcess.platform = .iOS }
        let settings = Counters(userDefaults: suite.modelAppGroup())
        settings.first = 1
        try settings.synchronizeToUserDefaults()
        #expect(Counters(userDefaults: suite.model()).first == 1)
    }

    // MARK: Finding 4: 0xdead10cc

    /// Holds the App Group lock file of `settingsClass` in `suite`, as another process of the
    /// group would; returns the descriptor.
    private func holdLockFile(of key: String, in suite: Suite) throws -> Int32 {
        let lockFile = AppleProcess.containersDirectory.appendingPathComponent(suite.name)
            .appendingPathComponent("Library/Application Support/AppSettings/\(key).lock")
        try FileManager.default.createDirectory(
            at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(lockFile.path, O_RDWR | O_CREAT, 0o600)
        #expect(flock(descriptor, LOCK_EX) == 0)
        return descriptor
    }

    @Test func anExpiringActivityStopsTheWriteBeforeTheProcessIsSuspended() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        AppleProcess.expiringActivityAnswer = .expiresWhileRunning(after: .milliseconds(300))
        let descriptor = try holdLockFile(of: "AppSettings.Counters", in: suite)
        let suspended = DispatchSemaphore(value: 0)
        AppleProcess.whenSuspended = {
            // Suspended: the other process writes and lets go of the lock file now. A writer of
            // this process still waiting for it would write while suspended.
            flock(descriptor, LOCK_UN)
            suspended.signal()
        }
        defer {
            AppleProcess.appGroups.remove(suite.name)
            AppleProcess.expiringActivityAnswer = .granted
            AppleProcess.whenSuspended = nil
            close(descriptor)
        }
        let settings = Counters(userDefaults: suite.modelAppGroup())
        settings.first = 1
        let error = #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
        #expect("\(error.map { "\($0)" } ?? "")".contains("suspended"))
        #expect(suspended.wait(timeout: .now() + 10) == .success)
        usleep(200_000)
        #expect(Counters(userDefaults: suite.model()).first == 0, "nothing written after the suspension")
        #expect(settings.hasUnsavedChanges)
    }

    @Test func theWaitForAnAppGroupsLockFileIsBounded() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        let limit = BackgroundAssertion.lockWaitLimit
        BackgroundAssertion.lockWaitLimit = .milliseconds(300)
        let descriptor = try holdLockFile(of: "AppSettings.Counters", in: suite)
        defer {
            AppleProcess.appGroups.remove(suite.name)
            BackgroundAssertion.lockWaitLimit = limit
            close(descriptor)
        }
        let settings = Counters(userDefaults: suite.modelAppGroup())
        settings.second = 2
        nonisolated(unsafe) var thrown: (any Error)?
        let finished = runThreads(
            [
                {
                    do { try settings.synchronizeToUserDefaults() } catch { thrown = error }
                }
            ], waitingAtMost: 10)
        flock(descriptor, LOCK_UN)
        #expect(finished, "the save waited for the lock file without a bound")
        #expect("\(thrown.map { "\($0)" } ?? "")".contains("stayed locked"))
    }

    // MARK: Finding 5: the tool's lock and notice

    @Test func theToolsAppGroupSuiteTakesTheAppsLockAndPostsItsNotice() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let app = Counters(userDefaults: suite.modelAppGroup())
        app.first = 1
        try app.synchronizeToUserDefaults()
        let before = AppleProcess.expiringActivities.begun
        // What `appsettings set --app-group` does.
        try StoredSettingsEditor.setValue(
            "2", forSetting: "second", userDefaults: AppleUserDefaults(appGroup: suite.name)!,
            key: app.userDefaultsKey)
        #expect(AppleProcess.expiringActivities.begun == before + 1, "the group's lock file, under an assertion")
        #expect(
            NotifyCenter.shared.posted.last
                == app.binding.store.preferencesDomain!.noticeName(forKey: app.userDefaultsKey))
        #expect(Counters(userDefaults: suite.model()).second == 2)
    }

    // MARK: Finding 5: one lock and one notice name per suite, whatever initializer made it

    @Test func aSuiteStoreOfAGroupNameSharesTheGroupsLockAndNotice() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let app = Counters(userDefaults: suite.modelAppGroup())
        let named = Counters(store: .suite(suite.name))
        let appDomain = try #require(app.binding.store.preferencesDomain)
        let namedDomain = try #require(named.binding.store.preferencesDomain)
        #expect(namedDomain.name == suite.name)
        #expect(
            namedDomain.noticeName(forKey: named.userDefaultsKey) == appDomain.noticeName(forKey: app.userDefaultsKey))
        #expect(namedDomain.isAppGroup, "a suite this process declared an App Group is the group's")

        let before = AppleProcess.expiringActivities.begun
        named.first = 1
        try named.synchronizeToUserDefaults()
        #expect(AppleProcess.expiringActivities.begun == before + 1, "the group's lock file, under an assertion")
        #expect(NotifyCenter.shared.posted.last == appDomain.noticeName(forKey: app.userDefaultsKey))
        try app.resetToUserDefaults()
        #expect(app.first == 1)
    }

    /// A `UserDefaults(suiteName:)` is not named by a probe any more: nothing is written into it
    /// to find its suite, and it is serialized within the process only.
    @Test func aUserDefaultsMadeWithSuiteNameIsNeverProbed() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        _ = Counters(userDefaults: suite.modelAppGroup())
        let plainDefaults = suite.model()
        let posts = Protected(0)
        let observer = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: plainDefaults, queue: nil
        ) { _ in posts.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        let plain = Counters(userDefaults: plainDefaults)
        #expect(posts.withLock { $0 } == 0, "making the object wrote into the suite")
        let domain = try #require(plain.binding.store.preferencesDomain)
        #expect(domain.name == nil && !domain.isAppGroup)
        let before = AppleProcess.expiringActivities.begun
        plain.first = 1
        try plain.synchronizeToUserDefaults()
        #expect(AppleProcess.expiringActivities.begun == before, "no group lock for a suite it cannot name")
    }

    @Test func aSuiteOfAnUnknownNameHasANoticeOfThisAppOnly() throws {
        let suite = Suite()
        let settings = Counters(userDefaults: suite.model())
        let domain = try #require(settings.binding.store.preferencesDomain)
        #expect(domain.name == nil, "no name recorded for it: its suite cannot be told")
        let notice = domain.noticeName(forKey: settings.userDefaultsKey)
        #expect(!notice.contains("/?/"), "a notice every app on the device shares: \(notice)")
        #expect(notice.contains("/" + PreferencesDomain.applicationName + "/"))
    }

    @Test func aSuiteMadeWithSuiteNameOfAKnownGroupIsNeverOverwrittenWhileUnavailable() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let writer = Counters(userDefaults: suite.modelAppGroup())
        writer.first = 1
        try writer.synchronizeToUserDefaults()
        AppleProcess.lockDevice()
        defer { AppleProcess.restoreDevice() }
        let settings = Counters(store: .suite(suite.name))
        guard case .storeUnavailable? = settings.lastLoadError else {
            Issue.record("the load did not say the store is unavailable: \(String(describing: settings.lastLoadError))")
            return
        }
        settings.second = 2
        #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
        AppleProcess.lockState = .unlocked
        #expect(Counters(userDefaults: suite.model()).first == 1, "the stored set was not overwritten")
    }

    // MARK: Finding 6: a set that could not be read is never overwritten

    @Test func aStoreUnavailableAtLoadIsNeverOverwrittenAndLoadsWhenAvailable() async throws {
        let suite = Suite()
        let writer = Counters(userDefaults: suite.modelAppGroup())
        writer.first = 1
        writer.second = 2
        try writer.synchronizeToUserDefaults()

        AppleProcess.lockDevice()
        defer { AppleProcess.restoreDevice() }
        let settings = Counters(userDefaults: suite.modelAppGroup())
        #expect(settings.first == 0)
        guard case .storeUnavailable? = settings.lastLoadError else {
            Issue.record("the load did not say the store is unavailable: \(String(describing: settings.lastLoadError))")
            return
        }
        settings.third = 3
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .storeUnavailable? = error as? AppSettingsError else { return false }
            return true
        }
        #expect(settings.hasUnsavedChanges)

        AppleProcess.unlock()
        for _ in 0..<500 where settings.first != 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(settings.first == 1 && settings.second == 2, "the stored set, loaded once available")
        #expect(settings.third == 3 && settings.hasUnsavedChanges, "the unsaved change stays on top")
        #expect(settings.lastLoadError == nil)
        try settings.synchronizeToUserDefaults()
        let reloaded = Counters(userDefaults: suite.model())
        #expect([reloaded.first, reloaded.second, reloaded.third] as [Int] == [1, 2, 3])
    }

    // MARK: Issue 36: protected data told by a public signal

    /// The notice that protected data became available can arrive between the load's check and
    /// the object's going live: the object loads the set all the same.
    @Test func protectedDataBecomingAvailableWhileAnObjectLoadsIsNotMissed() async throws {
        let suite = Suite()
        let writer = Counters(store: .suite(suite.name))
        writer.first = 1
        try writer.synchronizeToUserDefaults()
        AppleProcess.lockDevice()
        defer {
            AppleFileProtection.afterOpen = nil
            AppleProcess.restoreDevice()
        }
        AppleFileProtection.afterOpen = { _, result in
            guard result < 0 else { return }
            AppleFileProtection.afterOpen = nil
            // The device is unlocked right after the library found its file closed.
            AppleProcess.unlock()
        }
        let settings = Counters(store: .suite(suite.name))
        for _ in 0..<500 where settings.first != 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(settings.first == 1, "the notice fell between the check and the observer")
        #expect(settings.lastLoadError == nil)
    }

    /// Whether protected data is available is told by the library's own file, never by the
    /// daemon's: when that file cannot be opened for another reason (here a link in its place),
    /// the load says so in `lastLoadError` and nothing is written over what may be stored.
    @Test func aDomainWhoseAvailabilityCannotBeToldIsReportedAndKept() throws {
        let suite = Suite()
        let writer = Counters(store: .suite(suite.name))
        writer.first = 1
        try writer.synchronizeToUserDefaults()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "AppleBranchTests-" + UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("protected-data-probe").path, withDestinationPath: "/dev/null")
        let probeDirectory = ProtectedData.directory
        ProtectedData.directory = directory
        AppleProcess.lockDevice()
        defer {
            ProtectedData.directory = probeDirectory
            AppleProcess.restoreDevice()
        }
        let settings = Counters(store: .suite(suite.name))
        guard case .readFailed? = settings.lastLoadError else {
            Issue.record("the load did not report it: \(String(describing: settings.lastLoadError))")
            return
        }
        settings.second = 2
        #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
        AppleProcess.lockState = .unlocked
        let stored = Counters(store: .suite(suite.name))
        #expect(stored.first == 1 && stored.second == 0, "the stored set was kept")
    }

    /// The library's file is made at the first empty read of a named domain, under the strictest
    /// class, in the app's own folder: it cannot be opened while the device is locked.
    @Test func theLibrarysProtectedFileIsMadeUnderItsClassAtTheFirstEmptyRead() throws {
        let suite = Suite()
        _ = Counters(store: .suite(suite.name))
        let probe = try #require(ProtectedData.directory).appendingPathComponent("protected-data-probe")
        #expect(FileManager.default.fileExists(atPath: probe.path))
        #expect(
            probe.pathComponents.suffix(3) == [
                PreferencesDomain.applicationName, "AppSettings", "protected-data-probe",
            ])
        defer { AppleProcess.restoreDevice() }
        AppleProcess.lockState = .locked
        #expect(AppleFileProtection.open(probe.path, O_RDONLY) == -1 && errno == EPERM, "it is protected")
    }
}
