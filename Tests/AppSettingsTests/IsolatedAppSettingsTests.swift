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

/// A set whose `shared` is bound to a suite of its own (as an App Group's would be).
final class IsolatedGroupSettings: AppSettingsObject, @unchecked Sendable {
    static let suite = TemporarySuite()
    override class var sharedUserDefaults: UserDefaults { suite.userDefaults }
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

    @Test("after the isolated tests ran, the real stores hold nothing of theirs")
    func realStoresUntouched() async throws {
        // Runs after the cases above only by chance; what it checks holds whenever it runs, and is
        // checked again by `scripts` comparing the configuration directory (see .ci/run).
        let key = IsolatedSettings(userDefaults: TemporarySuite().userDefaults).userDefaultsKey
        UserDefaults.standard.synchronize()
        #expect(UserDefaults.standard.object(forKey: key) == nil)
        IsolatedGroupSettings.suite.userDefaults.synchronize()
        #expect(IsolatedGroupSettings.suite.userDefaults.object(forKey: key) == nil)
        let recoveryCopy = IsolatedSettings(userDefaults: .standard).recoveryCopyURL
        #expect(recoveryCopy.map { FileManager.default.fileExists(atPath: $0.path) } != true)
    }

    @Test("an object made outside the scope and saved inside it is reported")
    func outsideObjectIsReported() throws {
        let outside = IsolatedGroupSettings(userDefaults: IsolatedGroupSettings.suite.userDefaults)
        #expect(!outside.settingsStore.isInMemory)
        let reports = Mutex<[String]>([])
        let scope = SettingsIsolationScope(name: "a test") { message in reports.withLock { $0.append(message) } }
        defer { scope.end() }
        try SettingsIsolationScope.$current.withValue(scope) {
            let inside = IsolatedGroupSettings()
            inside.retries = 7
            try inside.synchronizeToUserDefaults()
            #expect(reports.withLock { $0 }.isEmpty)
            outside.retries = 9
            try outside.synchronizeToUserDefaults()
        }
        let messages = reports.withLock { $0 }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("IsolatedGroupSettings") == true)
        #expect(messages.first?.contains("outside the isolated settings of a test") == true)
        // Objects of other suites are not the scope's business.
        try SettingsIsolationScope.$current.withValue(scope) {
            let other = IsolatedGroupSettings(userDefaults: TemporarySuite().userDefaults)
            other.retries = 1
            try other.synchronizeToUserDefaults()
        }
        #expect(reports.withLock { $0 }.count == 1)
    }

    @Test("the trait reports an outside object as an issue of the test", .isolatedAppSettings)
    func traitRecordsAnIssue() async throws {
        // A detached task is outside the scope: the object it makes is bound to the real suite.
        let outside = await Task.detached {
            IsolatedGroupSettings(userDefaults: IsolatedGroupSettings.suite.userDefaults)
        }.value
        outside.retries = 11
        try withKnownIssue {
            try outside.synchronizeToUserDefaults()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("made outside the isolated settings") }
        }
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
