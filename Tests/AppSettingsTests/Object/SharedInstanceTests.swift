import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// `shared`: one instance per subclass, bound to `UserDefaults.standard`.
///
/// Every test here touches `UserDefaults.standard` and the process-wide registry of shared
/// instances, which no temporary suite can stand in for, so they run in this one suite, one at a
/// time, and remove what they stored under the keys of their classes before and after each test.
@Suite("Shared instances", .serialized)
final class SharedInstanceTests {
    /// The `UserDefaults.standard` keys of the classes used here.
    static let keys = [SharedA.self, SharedB.self, CountedShared.self, ConcurrencyShared.self, ConcurrencyShared2.self]
        .map { "AppSettings.AppSettingsTests.\(String(describing: $0))" }

    init() {
        Self.removeStoredKeys()
    }

    deinit {
        Self.removeStoredKeys()
    }

    private static func removeStoredKeys() {
        for key in keys { UserDefaults.standard.removeObject(forKey: key) }
        UserDefaults.standard.synchronize()
        #if os(Linux) && !APPLE_STAND_INS
            // The library's files for those keys, and its folder for the domain when nothing else
            // is in it, so that the tests leave the configuration directory as they found it.
            let location = DomainLocation.of(suiteNamed: nil)
            for key in keys { try? FileManager.default.removeItem(atPath: location.recoveryCopyPath(forKey: key)) }
            let folder = location.storeDirectoryPath
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if contents == ["domain.lock"] { try? FileManager.default.removeItem(atPath: folder) }
        #endif
    }

    @Test func theKeysRemovedAreTheKeysUsed() {
        #expect(SharedA.shared.userDefaultsKey == Self.keys[0])
        #expect(ConcurrencyShared2.shared.userDefaultsKey == Self.keys[4])
        // The others too, on instances of a scratch suite: their `shared` is first read, or their
        // initializations counted, by the tests below. (A key does not depend on the suite.)
        let scratch = TemporarySuite()
        #expect(SharedB(userDefaults: scratch.userDefaults).userDefaultsKey == Self.keys[1])
        #expect(ConcurrencyShared(userDefaults: scratch.userDefaults).userDefaultsKey == Self.keys[3])
        let counted = CountedShared.initializations.withLock { $0 }
        #expect(CountedShared(userDefaults: scratch.userDefaults).userDefaultsKey == Self.keys[2])
        CountedShared.initializations.withLock { $0 = counted }
    }

    @Test func sharedIsOnePerSubclass() {
        let first: AppSettingsObject = SharedA.shared
        let second: AppSettingsObject = SharedA.shared
        let other: AppSettingsObject = SharedB.shared
        #expect(first === second)
        #expect(other !== first)
        #expect(type(of: other) == SharedB.self)
        #expect(first.userDefaults === UserDefaults.standard)
    }

    @Test func sharedIsCreatedOnceUnderConcurrentFirstAccess() async {
        let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<64 {
                group.addTask { ObjectIdentifier(CountedShared.shared) }
            }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(CountedShared.initializations.withLock { $0 } == 1)
    }

    @Test func concurrentFirstAccessToSharedOfManyClasses() async {
        let identities = await withTaskGroup(of: (Int, ObjectIdentifier).self) { group in
            for index in 0..<64 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? (0, ObjectIdentifier(ConcurrencyShared.shared))
                        : (1, ObjectIdentifier(ConcurrencyShared2.shared))
                }
            }
            return await group.reduce(into: [Int: Set<ObjectIdentifier>]()) { $0[$1.0, default: []].insert($1.1) }
        }
        #expect(identities[0]?.count == 1)
        #expect(identities[1]?.count == 1)
        #expect(identities[0] != identities[1])
    }

    @Test func sharedIsUsableFromManyThreadsAndStoresInStandard() throws {
        let shared = ConcurrencyShared.shared
        Threads.run(4) { index in
            for count in 0..<1_000 {
                _ = shared.value
                shared.value = index * 1_000 + count
            }
        }
        shared.value = 42
        try shared.synchronizeToUserDefaults()
        let stored = try #require(UserDefaults.standard.data(forKey: shared.userDefaultsKey))
        #expect(try StoredSetContents(stored).settings["value"] == .integer(42))
        #expect(ConcurrencyShared(userDefaults: .standard).value == 42)
        // Leave the shared instance as a fresh process would find it.
        try shared.removeFromUserDefaults()
        #expect(shared.value == 0)
    }
}

final class SharedA: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 1
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.SharedA" }
}

final class SharedB: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 1
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.SharedB" }
}

final class ConcurrencyShared: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.ConcurrencyShared" }
}

final class ConcurrencyShared2: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.ConcurrencyShared2" }
}
