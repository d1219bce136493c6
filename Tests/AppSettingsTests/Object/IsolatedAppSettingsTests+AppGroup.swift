import AppSettingsTesting
import Foundation
import Synchronization
import Testing

@testable import AppSettings

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// An App Group class as the docs show it, with the pinned API.
final class IsolatedAppGroupSettings: AppSettingsObject, @unchecked Sendable {
    static let group = "group.AppSettingsTests-isolated-" + UUID().uuidString
    override class var sharedStore: AppSettingsStore { .appGroup(group) }
    @Setting var caseNumber = -1
}

/// The same, as written before `sharedStore`: the getter returns a new object at every call.
final class IsolatedLegacyGroupSettings: AppSettingsObject, @unchecked Sendable {
    static let group = "group.AppSettingsTests-isolated-legacy-" + UUID().uuidString
    override class var sharedUserDefaults: UserDefaults { UserDefaults(appGroup: group) ?? .standard }
    @Setting var caseNumber = -1
}

/// The files a real suite of `name` would have, where they exist.
private func realFiles(ofSuite name: String) -> [String] {
    #if APPLE_STAND_INS
        let candidates = [
            AppleProcess.preferencesDirectory(forSuite: name).appendingPathComponent(name + ".plist").path,
            AppleProcess.containersDirectory.appendingPathComponent(name).path,
        ]
    #else
        let location = DomainLocation.of(suiteNamed: name)
        let candidates = [location.domainFilePath, location.storeDirectoryPath]
    #endif
    return candidates.filter { FileManager.default.fileExists(atPath: $0) }
}

/// Isolation by what a store is (issue 40): an App Group class's objects, however they are made,
/// use the test's memory.
@Suite("Isolated settings of App Group classes")
struct IsolatedAppGroupTests {
    @Test(.isolatedAppSettings, arguments: 0..<50)
    func eachCaseOfAnAppGroupClassSeesItsOwnAndWritesNoFile(caseNumber: Int) async throws {
        let shared = IsolatedAppGroupSettings.shared
        #expect(shared.caseNumber == -1)
        shared.caseNumber = caseNumber
        try shared.synchronizeToUserDefaults()
        let legacy = IsolatedLegacyGroupSettings.shared
        #expect(legacy.caseNumber == -1)
        legacy.caseNumber = caseNumber
        try legacy.synchronizeToUserDefaults()
        try await Task.sleep(for: .milliseconds(Int.random(in: 1...20)))
        // However an object of the group's store is made, it is the test's.
        let group = IsolatedAppGroupSettings.group
        #expect(IsolatedAppGroupSettings(store: .appGroup(group)).caseNumber == caseNumber)
        #expect(IsolatedAppGroupSettings(store: .suite(group)).caseNumber == caseNumber)
        #expect(IsolatedAppGroupSettings(userDefaults: UserDefaults(appGroup: group)!).caseNumber == caseNumber)
        #expect(IsolatedAppGroupSettings().caseNumber == caseNumber)
        let legacyGroup = IsolatedLegacyGroupSettings.group
        let legacyGroupDefaults = UserDefaults(appGroup: legacyGroup)!
        #expect(IsolatedLegacyGroupSettings(userDefaults: legacyGroupDefaults).caseNumber == caseNumber)
        #expect(IsolatedLegacyGroupSettings(store: IsolatedLegacyGroupSettings.sharedStore).caseNumber == caseNumber)
        #expect(IsolatedAppGroupSettings.shared.settingsStore.isInMemory)
        #expect(realFiles(ofSuite: group) == [])
        #expect(realFiles(ofSuite: legacyGroup) == [])
    }

    @Test("an object carried from one test's scope into another's is reported in the second")
    func carriedObjectIsReported() throws {
        let firstReports = Mutex<[String]>([])
        let secondReports = Mutex<[String]>([])
        let first = SettingsIsolationScope(name: "the first test") { message in
            firstReports.withLock { $0.append(message) }
        }
        let second = SettingsIsolationScope(name: "the second test") { message in
            secondReports.withLock { $0.append(message) }
        }
        defer {
            first.end()
            second.end()
        }
        // Kept in a `static` by the first test, say.
        let carried = try SettingsIsolationScope.$current.withValue(first) {
            let settings = IsolatedAppGroupSettings()
            settings.caseNumber = 1
            try settings.synchronizeToUserDefaults()
            return settings
        }
        try SettingsIsolationScope.$current.withValue(second) {
            carried.caseNumber = 2
            try carried.synchronizeToUserDefaults()
            #expect(IsolatedAppGroupSettings().caseNumber == -1, "the second test's store is its own")
        }
        #expect(firstReports.withLock { $0 } == [])
        let messages = secondReports.withLock { $0 }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("IsolatedAppGroupSettings") == true)
        #expect(messages.first?.contains("made in the isolated settings of the first test") == true)
        #expect(messages.first?.contains("the second test") == true)
    }
}
