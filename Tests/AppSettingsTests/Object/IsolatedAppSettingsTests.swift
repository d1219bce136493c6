import AppSettingsTesting
import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// A set only the tests of `.isolatedAppSettings` use, bound to `UserDefaults.standard`: its key is
/// checked to be absent from the real `UserDefaults.standard` after they ran.
final class IsolatedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var soundLevel: Float = 0.7
    @Setting var caseNumber = -1
}

/// A set whose `shared` is bound to a suite of its own (as an App Group's would be). Only
/// `outsideObjectIsReported` writes that suite for real, and removes it.
final class IsolatedGroupSettings: AppSettingsObject, @unchecked Sendable {
    static let suiteName = "AppSettingsTests-isolated-group-" + UUID().uuidString
    // `UserDefaults` is thread-safe; corelibs does not mark it `Sendable`.
    nonisolated(unsafe) static let suite = UserDefaults(suiteName: suiteName)!
    override class var sharedUserDefaults: UserDefaults { suite }
    @Setting var retries = 3
}

/// `.isolatedAppSettings`: each test (and each case of a parameterized test) gets a fresh
/// in-memory store and its own `shared`.
@Suite("Isolated settings")
struct IsolatedAppSettingsTests {
    @Test(.isolatedAppSettings, arguments: 0..<40)
    func eachCaseStartsFromDeveloperDefaultsAndKeepsItsOwn(caseNumber: Int) async throws {
        let shared = IsolatedSettings.shared
        #expect(shared.soundLevel == 0.7)
        #expect(shared.caseNumber == -1)
        #expect(shared.settingsStore.isInMemory)
        shared.caseNumber = caseNumber
        shared.soundLevel = Float(caseNumber) / 100
        try IsolatedSettings.shared.synchronizeToUserDefaults()
        // Let the other cases run in between.
        try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
        #expect(IsolatedSettings().caseNumber == caseNumber)
        #expect(IsolatedSettings(userDefaults: .standard).soundLevel == Float(caseNumber) / 100)
        #expect(IsolatedSettings.shared === shared)
        #expect(shared.caseNumber == caseNumber)
        // A child task is inside the scope too.
        let fromChild = await Task { IsolatedSettings.shared.caseNumber }.value
        #expect(fromChild == caseNumber)
        // The class's sharedUserDefaults (a suite) stands for the test's store too.
        #expect(IsolatedGroupSettings.shared.settingsStore.isInMemory)
        IsolatedGroupSettings.shared.retries = caseNumber
        try IsolatedGroupSettings.shared.synchronizeToUserDefaults()
        #expect(IsolatedGroupSettings().retries == caseNumber)
    }

    @Test("an object made outside the scope and used inside it is reported", .isolatedAppSettings)
    func outsideObjectIsReported() async throws {
        // The objects bound to the real suite are released before it is removed.
        defer { TemporarySuite.remove(suiteNamed: IsolatedGroupSettings.suiteName) }
        try await useObjectsMadeOutside()
        // The real suite holds what the outside object wrote, and nothing of the isolated ones.
        let stored = IsolatedGroupSettings(
            store: .userDefaults(UserDefaults(suiteName: IsolatedGroupSettings.suiteName)!))
        #expect(!stored.settingsStore.isInMemory)
        #expect(stored.retries == 9)
    }

    private func useObjectsMadeOutside() async throws {
        // A detached task is outside the scope: the object it makes is bound to the real suite.
        let outside = await Task.detached {
            IsolatedGroupSettings(userDefaults: IsolatedGroupSettings.suite)
        }.value
        #expect(!outside.settingsStore.isInMemory)

        // The trait records an issue of the test.
        outside.retries = 11
        try withKnownIssue {
            try outside.synchronizeToUserDefaults()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("made outside the isolated settings") }
        }

        // Any scope says what it found, naming the class and the scope.
        let reports = Mutex<[String]>([])
        let scope = SettingsIsolationScope(name: "a test") { message in reports.withLock { $0.append(message) } }
        defer { scope.end() }
        try SettingsIsolationScope.$current.withValue(scope) {
            let inside = IsolatedGroupSettings()
            #expect(inside.settingsStore.isInMemory)
            inside.retries = 7
            try inside.synchronizeToUserDefaults()
            #expect(reports.withLock { $0 }.isEmpty)
            outside.retries = 9
            try outside.synchronizeToUserDefaults()
            // Objects made inside for another suite are not the scope's business.
            let other = IsolatedGroupSettings(store: .inMemory(UUID().uuidString))
            other.retries = 1
            try other.synchronizeToUserDefaults()
        }
        let messages = reports.withLock { $0 }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("IsolatedGroupSettings") == true)
        #expect(messages.first?.contains("outside the isolated settings of a test") == true)
        #expect(IsolatedGroupSettings().retries == 3)
    }

    @Test("a scope's end releases its shared instances and empties its store")
    func endOfScope() throws {
        let scope = SettingsIsolationScope(name: "ending") { _ in }
        weak var released: IsolatedSettings?
        try SettingsIsolationScope.$current.withValue(scope) {
            let shared = IsolatedSettings.shared
            shared.caseNumber = 5
            try shared.synchronizeToUserDefaults()
            released = shared
        }
        scope.end()
        // Other tests' objects run at the same time: registering one of the same key, or a notice
        // that looks at every live object, reads each weak reference and so holds the instance for
        // a moment. Released means released within a bound, not at this very instant.
        _ = waitUntil(seconds: 30) { released == nil }
        #expect(released == nil)
        #expect(scope.storage.all.isEmpty)
    }
}

/// The trait on a suite: every test of it is isolated.
@Suite("Isolated settings, suite trait", .isolatedAppSettings)
struct IsolatedSuiteTests {
    @Test func first() throws {
        #expect(IsolatedSettings.shared.caseNumber == -1)
        IsolatedSettings.shared.caseNumber = 100
        try IsolatedSettings.shared.synchronizeToUserDefaults()
        #expect(IsolatedSettings().caseNumber == 100)
    }

    @Test func second() throws {
        #expect(IsolatedSettings.shared.caseNumber == -1)
        IsolatedSettings.shared.caseNumber = 200
        try IsolatedSettings.shared.synchronizeToUserDefaults()
        #expect(IsolatedSettings().caseNumber == 200)
    }
}
