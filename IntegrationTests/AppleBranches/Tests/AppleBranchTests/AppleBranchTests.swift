import AppleStandIns
import Foundation
import Testing

@testable import AppSettings

// The library as it is built for Apple platforms (its `#if canImport(Darwin) || APPLE_STAND_INS`
// blocks), run against the stand-ins of Apple's APIs: the store's locks, the App Group's lock file
// under a background-task assertion, the notices of notify(3), the secure-coding method added to
// each subclass. Serialized: the stand-ins' process state (App Groups, suspension) is global.

final class Counters: AppSettingsObject, @unchecked Sendable {
    @Setting var first = 0
    @Setting var second = 0
    @Setting var third = 0
    @Setting var fourth = 0

    nonisolated(unsafe) static let all: [ReferenceWritableKeyPath<Counters, Int>] = [
        \.first, \.second, \.third, \.fourth,
    ]
}

/// A fresh suite, removed when the test ends.
final class Suite {
    let name = "AppleBranchTests-" + UUID().uuidString
    deinit { try? AppSettingsStore.suite(name).remove() }
    func plain() -> UserDefaults { UserDefaults(suiteName: name)! }
    func appGroup() -> UserDefaults { UserDefaults(appGroup: name)! }
}

@Suite(.serialized)
struct AppleBranchTests {
    @Test func writersOfOneSetInOneProcessLoseNoChange() throws {
        let suite = Suite()
        let rounds = 30
        let failures = NSLock()
        nonisolated(unsafe) var errors: [String] = []
        // Each writer on a `UserDefaults` of its own: only the library's lock can serialize them.
        let threads = Counters.all.indices.map { index in
            let settings = Counters(userDefaults: suite.plain())
            return Thread {
                for _ in 0..<rounds {
                    settings[keyPath: Counters.all[index]] += 1
                    do { try settings.synchronizeToUserDefaults() } catch {
                        failures.lock()
                        errors.append("\(error)")
                        failures.unlock()
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(errors == [])
        let loaded = Counters(userDefaults: suite.plain())
        for counter in Counters.all { #expect(loaded[keyPath: counter] == rounds) }
    }

    @Test func anAppGroupsWritersTakeTheLockFileUnderAnAssertion() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let before = AppleProcess.expiringActivities
        let settings = Counters(userDefaults: suite.appGroup())
        settings.first = 1
        try settings.synchronizeToUserDefaults()
        let lockFile = AppleProcess.containersDirectory
            .appendingPathComponent(suite.name)
            .appendingPathComponent("Library/Application Support/AppSettings/AppSettings.Counters.lock")
        #expect(FileManager.default.fileExists(atPath: lockFile.path))
        #expect(AppleProcess.expiringActivities.begun == before.begun + 1)
        #expect(AppleProcess.expiringActivities.refused == before.refused)
        #expect(Counters(userDefaults: suite.plain()).first == 1)
    }

    @Test func aProcessBeingSuspendedStillSavesWithoutTheLockFile() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        AppleProcess.isBeingSuspended = true
        defer {
            AppleProcess.appGroups.remove(suite.name)
            AppleProcess.isBeingSuspended = false
        }
        let before = AppleProcess.expiringActivities
        let settings = Counters(userDefaults: suite.appGroup())
        settings.second = 2
        try settings.synchronizeToUserDefaults()
        #expect(AppleProcess.expiringActivities.refused == before.refused + 1)
        #expect(Counters(userDefaults: suite.plain()).second == 2)
    }

    @Test func aSuiteOutsideAnyAppGroupTakesNoAssertion() throws {
        let suite = Suite()
        let before = AppleProcess.expiringActivities
        let settings = Counters(userDefaults: suite.appGroup())  // no entitlement: no container
        settings.third = 3
        try settings.synchronizeToUserDefaults()
        #expect(AppleProcess.expiringActivities.begun == before.begun)
    }

    @Test func noticesNameTheSuiteAndAreRegisteredWhileObjectsLive() throws {
        let suite = Suite()
        let name = "AppSettings.storedSettingsDidChange/\(suite.name)/AppSettings.Counters"
        var first: Counters? = Counters(userDefaults: suite.appGroup())
        var second: Counters? = Counters(userDefaults: suite.appGroup())
        #expect(NotifyCenter.shared.registeredNames.filter { $0 == name }.count == 1)
        first?.fourth = 4
        try first?.synchronizeToUserDefaults()
        #expect(NotifyCenter.shared.posted.last == name)
        first = nil
        #expect(NotifyCenter.shared.registeredNames.contains(name))
        second = nil
        // The notice of the write above may still hold the last object on the notices' queue.
        for _ in 0..<200 where NotifyCenter.shared.registeredNames.contains(name) { usleep(10_000) }
        #expect(!NotifyCenter.shared.registeredNames.contains(name))
        _ = (first, second)
        // The suite's store by its name: the same notice.
        let plain = Counters(store: .suite(suite.name))
        #expect(plain.binding.store.preferencesDomain!.noticeName(forKey: plain.userDefaultsKey) == name)
        // Of a suite whose name nothing recorded: a notice of this app's, not one every app shares.
        let unknown = Counters(userDefaults: Suite().plain())
        #expect(
            unknown.binding.store.preferencesDomain!.noticeName(forKey: unknown.userDefaultsKey)
                == "AppSettings.storedSettingsDidChange.unknownSuite/\(ProcessInfo.processInfo.processName)/"
                + "AppSettings.Counters")
        #expect(
            Counters().binding.store.preferencesDomain!.noticeName(forKey: "k").hasSuffix(
                "/\(ProcessInfo.processInfo.processName)/k"))
    }

    @Test func anotherProcessesWriteIsNoticedAndReloaded() async throws {
        let suite = Suite()
        let settings = Counters(userDefaults: suite.appGroup())
        settings.reloadsWhenStoredSettingsChange = true
        // Another process: its own objects (here a scratch one whose write this process never
        // recorded), its own post of the notice.
        let other = Counters(userDefaults: suite.plain())
        other.first = 7
        let data = try SettingsCodec(object: other).archive(other.ledger.takeSnapshot())
        suite.plain().set(data, forKey: settings.userDefaultsKey)
        _ = notify_post(settings.binding.store.preferencesDomain!.noticeName(forKey: settings.userDefaultsKey))
        for _ in 0..<200 where settings.first != 7 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(settings.first == 7)
    }

    @Test func anAppGroupsContainerIsTouchedAtTheFirstWriteNotAtCreation() throws {
        let suite = Suite()
        AppleProcess.appGroups.insert(suite.name)
        defer { AppleProcess.appGroups.remove(suite.name) }
        let lockDirectory = AppleProcess.containersDirectory.appendingPathComponent(suite.name)
            .appendingPathComponent("Library/Application Support/AppSettings")
        let settings = Counters(store: .appGroup(suite.name))
        let madeTheOlderWay = Counters(userDefaults: UserDefaults(appGroup: suite.name)!)
        #expect(!FileManager.default.fileExists(atPath: lockDirectory.path), "made when the object was")
        settings.first = 1
        try settings.synchronizeToUserDefaults()
        #expect(FileManager.default.fileExists(atPath: lockDirectory.path))
        #expect(madeTheOlderWay.settingsStore == settings.settingsStore)
    }

    /// macOS also accepts `<team identifier>.<name>` group identifiers: the same lock file.
    @Test func aMacGroupIdentifierOfTheTeamFormTakesTheGroupsLockFile() throws {
        let group = "ABCDE12345.AppleBranchTests-" + UUID().uuidString
        AppleProcess.platform = .macOS
        AppleProcess.appGroups.insert(group)
        defer {
            AppleProcess.appGroups.remove(group)
            AppleProcess.platform = .iOS
            try? AppSettingsStore.suite(group).remove()
        }
        let settings = Counters(store: .appGroup(group))
        settings.second = 2
        try settings.synchronizeToUserDefaults()
        let lockFile = AppleProcess.containersDirectory.appendingPathComponent(group)
            .appendingPathComponent("Library/Application Support/AppSettings/AppSettings.Counters.lock")
        #expect(FileManager.default.fileExists(atPath: lockFile.path))
        #expect(Counters(store: .suite(group)).second == 2)
    }

    @Test func eachSubclassTakesTheSecureCodingMethodItsAncestorsResolve() {
        class Intermediate: AppSettingsObject, @unchecked Sendable {
            @Setting var value = 0
        }
        final class Leaf: Intermediate, @unchecked Sendable {}
        final class Direct: AppSettingsObject, @unchecked Sendable {
            @Setting var value = 0
        }
        let selector = NSSelectorFromString("supportsSecureCoding")
        let base = OpaquePointer(bitPattern: 0x1000)!
        let overridden = OpaquePointer(bitPattern: 0x2000)!
        ClassMethodTable.shared.implement(selector, in: AppSettingsObject.self, with: base)
        ClassMethodTable.shared.implement(selector, in: Intermediate.self, with: overridden)
        _ = Leaf()
        _ = Direct()
        #expect(ClassMethodTable.shared.ownImplementation(of: selector, in: Leaf.self) == overridden)
        #expect(ClassMethodTable.shared.ownImplementation(of: selector, in: Direct.self) == base)
    }
}
