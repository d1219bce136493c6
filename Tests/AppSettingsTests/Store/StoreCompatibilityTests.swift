import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// The contract every storage domain keeps, run over each one this build has (`StoreKind`): on
/// Linux the Linux preferences domain and memory; in the Apple-model build
/// (IntegrationTests/AppleBranches) the Apple preferences domain over the model of Apple's
/// `UserDefaults`, and memory. As swift-configuration runs one suite over every provider: a
/// domain cannot quietly differ. What a store holds is read from outside the library
/// (`StoreUnderTest.everything()`: the domain's file, or the in-memory store's values) and counted
/// whole, every key, not only the set's. Each check was seen to fail against a deliberate bug in a
/// domain (the commit that added this suite says which).
@Suite("Every store keeps the store's contract", .capturedLibraryLog)
struct StoreCompatibilityTests {
    /// A key of the store's own, written below the settings object.
    static let key = "AppSettings.Compatibility"

    /// The bytes `store` holds under `key`, or `nil`.
    func bytes(in store: SettingsStore, refresh: Bool = true) throws -> Data? {
        guard let found = try store.read(refresh: refresh) else { return nil }
        guard case .data(let bytes) = found.object else {
            Issue.record("\(store.key) holds \(found.object), not bytes")
            return nil
        }
        #expect(found.source == .userDefaults)
        return bytes
    }

    /// Writes `data` under the store's key; returns what the writer found stored.
    @discardableResult
    func write(_ data: Data, to store: SettingsStore) throws -> Data? {
        try store.write { domain -> SettingsStore.Write<Data?> in
            let found: Data? =
                if case .data(let bytes)? = domain.stored { bytes } else { nil }
            return SettingsStore.Write(data: data, writeID: .random(in: 1...Int64.max), backup: nil, decision: found)
        }.decision
    }

    /// Whether the store holds exactly `expected`: the same keys, each with an equal value.
    func expectHolds(_ fresh: StoreUnderTest, _ expected: [String: Any], _ comment: Comment, at line: Int = #line)
        throws
    {
        let stored = try fresh.everything()
        let location = SourceLocation(fileID: #fileID, filePath: #filePath, line: line, column: 1)
        #expect(Set(stored.keys) == Set(expected.keys), comment, sourceLocation: location)
        for (key, value) in expected {
            guard let found = stored[key] else { continue }
            #expect(samePropertyList(found, value), "\(comment): \(key) holds \(found)", sourceLocation: location)
        }
    }

    // MARK: Capabilities

    /// What the store does beyond the core of `StorageDomain` follows from the domain's capabilities:
    /// each domain has exactly those its platform gives it.
    @Test("each domain has the capabilities of its platform, and no other", arguments: StoreKind.allCases)
    func capabilities(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        let store = SettingsStore(store: fresh.store, key: Self.key)
        let preferences = kind != .inMemory
        #expect((store.preferencesDomain != nil) == preferences)
        #expect((store.availability != nil) == preferences, "telling a set it cannot read now")
        #if os(Linux) && !APPLE_STAND_INS
            // The Linux domain: its file is the library's, and each set has a recovery copy.
            #expect((store.domainFile != nil) == preferences, "a domain file the library writes")
            #expect((store.recoveryCopies != nil) == preferences, "a recovery copy")
        #else
            // Apple's daemon owns the file and writes each key atomically.
            #expect(store.domainFile == nil, "a domain file the library writes")
            #expect(store.recoveryCopies == nil, "a recovery copy")
        #endif
    }

    @Test("a suite whose name cannot be used has none, and refuses reads and writes")
    func aRefusedSuiteHasNoCapability() throws {
        let store = SettingsStore(store: .suite("a/b"), key: Self.key)
        #expect(store.preferencesDomain == nil && store.availability == nil)
        #expect(store.domainFile == nil && store.recoveryCopies == nil)
        #expect(throws: AppSettingsError.self) { try store.read(refresh: true) }
        #expect(throws: AppSettingsError.self) { try write(Data("refused".utf8), to: store) }
    }

    // MARK: Read, absent, remove

    @Test(
        "what was written is read back, by the writer and by another store of the same name",
        arguments: StoreKind.allCases)
    func readsWhatWasWritten(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        let writer = SettingsStore(store: fresh.store, key: Self.key)
        let first = Data((0..<300).map { UInt8($0 % 251) })
        #expect(try write(first, to: writer) == nil, "a fresh store held something")
        let reader = SettingsStore(store: fresh.again(), key: Self.key)
        #expect(try bytes(in: writer) == first)
        #expect(try bytes(in: reader) == first)
        #expect(writer.holds(first) && reader.holds(first))

        // A write decides from what is stored now, whoever wrote it.
        let second = Data("the second write".utf8)
        #expect(try write(second, to: reader) == first)
        #expect(try bytes(in: writer) == second)
        #expect(try bytes(in: SettingsStore(store: fresh.again(), key: Self.key)) == second)
        try expectHolds(fresh, [Self.key: second], "after two writes")
    }

    @Test(
        "a key never written is nothing stored: no bytes, no error, developer defaults", arguments: StoreKind.allCases)
    func anAbsentKeyIsNothingStored(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        #expect(try bytes(in: SettingsStore(store: fresh.store, key: Self.key)) == nil)
        // Nor beside other keys.
        fresh.setOthers(StoreUnderTest.others)
        #expect(try bytes(in: SettingsStore(store: fresh.store, key: Self.key)) == nil)
        let settings = MySettings(store: fresh.store)
        #expect(settings.lastLoadError == nil)
        #expect(!settings.hasUnsavedChanges)
        #expect(settings.theme == .light && settings.soundLevel == 0.5 && settings.constellation == "Orion")
        // Removing what is not there is no error, and writes nothing.
        try SettingsStore(store: fresh.store, key: Self.key).remove()
        try expectHolds(fresh, StoreUnderTest.others, "after removing an absent key")
    }

    @Test("remove takes the key away, and only it", arguments: StoreKind.allCases)
    func removeTakesTheKeyAwayAndNothingElse(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        fresh.setOthers(StoreUnderTest.others)
        let store = SettingsStore(store: fresh.store, key: Self.key)
        let neighbour = SettingsStore(store: fresh.store, key: Self.key + "Neighbour")
        try write(Data("ours".utf8), to: store)
        try write(Data("the neighbour's".utf8), to: neighbour)
        try store.remove()
        #expect(try bytes(in: store) == nil)
        #expect(try bytes(in: SettingsStore(store: fresh.again(), key: Self.key)) == nil)
        #expect(try bytes(in: neighbour) == Data("the neighbour's".utf8))
        var expected = StoreUnderTest.others
        expected[neighbour.key] = Data("the neighbour's".utf8)
        try expectHolds(fresh, expected, "after a remove")
        // Written again after its removal, it is read again.
        try write(Data("back".utf8), to: store)
        #expect(try bytes(in: SettingsStore(store: fresh.again(), key: Self.key)) == Data("back".utf8))
    }

    @Test("revert, reset to developer defaults and remove work on every store", arguments: StoreKind.allCases)
    func revertResetAndRemove(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        let settings = MySettings(store: fresh.store)
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()

        settings.theme = .system
        try settings.resetToUserDefaults()
        #expect(settings.theme == .dark)
        #expect(!settings.hasUnsavedChanges)

        settings.resetToDeveloperDefaults()
        #expect(settings.theme == .light)
        #expect(settings.soundLevel == 0.5)
        #expect(settings.hasUnsavedChanges)
        try settings.resetToUserDefaults()
        #expect(settings.theme == .dark)

        try settings.removeFromUserDefaults()
        #expect(settings.theme == .light)
        #expect(settings.userDefaults.object(forKey: settings.userDefaultsKey) == nil)
        #expect(MySettings(store: fresh.again()).theme == .light)
        try expectHolds(fresh, [:], "after the set was removed")
    }

    // MARK: Every other key

    /// Creation, saves, a revert, a second object's save and a removal: the suite holds what the
    /// app's other code stored, every key of it unchanged, beside the set's own key, and nothing else.
    @Test("every other key of the suite is kept, and nothing is added", arguments: StoreKind.allCases)
    func everyOtherKeyIsKept(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        fresh.setOthers(StoreUnderTest.others)
        let settings = MySettings(store: fresh.store)
        try expectHolds(fresh, StoreUnderTest.others, "after an object was made")
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        var expected = StoreUnderTest.others
        expected[settings.userDefaultsKey] = try #require(fresh.everything()[settings.userDefaultsKey] as? Data)
        try expectHolds(fresh, expected, "after a save")
        try settings.resetToUserDefaults()
        let second = MySettings(store: fresh.again())
        second.soundLevel = 0.25
        try second.synchronizeToUserDefaults()
        settings.constellation = "Lyra"
        try settings.synchronizeToUserDefaults()
        expected[settings.userDefaultsKey] = try #require(fresh.everything()[settings.userDefaultsKey] as? Data)
        try expectHolds(fresh, expected, "after a revert and two objects' saves")
        let loaded = MySettings(store: fresh.again())
        #expect(loaded.theme == .dark && loaded.soundLevel == 0.25 && loaded.constellation == "Lyra")
        try settings.removeFromUserDefaults()
        try expectHolds(fresh, StoreUnderTest.others, "after the set was removed")
    }

    // MARK: Size

    final class Payload: AppSettingsObject, @unchecked Sendable {
        @Setting var payload = Data()
    }

    @Test("a set just under the size limit is kept whole; over it, nothing is written", arguments: StoreKind.allCases)
    func theSizeLimit(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        let limit = SettingsStore.maximumDomainByteCount
        let settings = Payload(store: fresh.store)
        // The archive adds a few hundred bytes to its payload.
        let large = Data((0..<(limit - 4096)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        settings.payload = large
        try settings.synchronizeToUserDefaults()
        #expect(Payload(store: fresh.again()).payload == large)

        settings.payload = Data(count: limit + 1)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let refused) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Payload" && byteCount > limit && refused == limit
        }
        #expect(settings.hasUnsavedChanges)
        let reloaded = Payload(store: fresh.again())
        #expect(reloaded.payload == large, "a refused write replaced the set")
        #expect(reloaded.lastLoadError == nil)
    }

    @Test("the suite's other keys count towards the limit", arguments: StoreKind.allCases)
    func otherKeysCountTowardsTheLimit(kind: StoreKind) throws {
        final class Medium: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        final class Large: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        let fresh = StoreUnderTest(kind)
        // Each part fits alone; together they do not.
        let third = SettingsStore.maximumDomainByteCount / 3
        fresh.setOthers(["other code's data": Data(count: third)])
        let other = Medium(store: fresh.store)
        other.payload = Data(count: third)
        try other.synchronizeToUserDefaults()
        let settings = Large(store: fresh.store)
        settings.payload = Data(count: third + 1024)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let limit) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Large" && byteCount > 3 * third && limit == SettingsStore.maximumDomainByteCount
        }
        #expect(try fresh.everything()["AppSettings.Large"] == nil)
        settings.payload = Data(count: 1024)
        try settings.synchronizeToUserDefaults()
    }
}
