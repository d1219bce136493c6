import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// What may be found under a set's key that a load cannot use.
enum StoredDamage: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// An archive cut short, with a byte flipped.
    case damagedBytes
    /// A value other code wrote there that is not `Data`.
    case notData
    /// The domain's file is not a property list, and there is no recovery copy (Linux).
    case damagedDomainFile

    var testDescription: String { rawValue }

    /// Each store with each damage it can have.
    static let cases: [(StoreKind, StoredDamage)] =
        StoreKind.allCases.flatMap { [($0, .damagedBytes), ($0, .notData)] }
        + StoreKind.withLibraryWrittenDomainFile.map { ($0, .damagedDomainFile) }
}

extension StoreCompatibilityTests {
    // MARK: Identity

    @Test("a store equals itself made again and its objects' stores, and no other", arguments: StoreKind.allCases)
    func identity(kind: StoreKind) throws {
        let fresh = StoreUnderTest(kind)
        let store = fresh.store
        #expect(fresh.again() == store)
        #expect(fresh.again().hashValue == store.hashValue)
        #expect(fresh.another() != store)
        #expect(Set([store, fresh.again(), fresh.another()]).count == 2)
        #expect(AppSettingsStore.userDefaults(store.userDefaults) == store, "not found again from its UserDefaults")
        let settings = MySettings(store: store)
        #expect(settings.settingsStore == store)
        #expect(MySettings(userDefaults: settings.userDefaults).settingsStore == store)
        #expect(MySettings(store: fresh.again()).settingsStore == store)

        // What it says it is.
        #expect(store.isInMemory == (kind == .inMemory))
        #expect(store.isAppGroup == (kind == .appGroup))
        #expect(store.suiteName == ([.suite, .appGroup].contains(kind) ? fresh.name : nil))
        // Its files, where the library keeps them.
        let hasFiles = StoreKind.withLibraryWrittenDomainFile.contains(kind)
        #expect(store.domainFileURL?.lastPathComponent == (hasFiles ? fresh.name + ".plist" : nil))
        let copy = store.recoveryCopyURL(forKey: settings.userDefaultsKey)
        #expect(copy?.lastPathComponent == (hasFiles ? settings.userDefaultsKey + ".archive" : nil))
    }

    // MARK: A second object

    /// Waits, without holding a thread, until `condition` holds, for at most 10 s.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("a second object sees a save; a live one is told, and merges per setting", arguments: StoreKind.allCases)
    func aSecondObject(kind: StoreKind) async throws {
        let fresh = StoreUnderTest(kind)
        let first = MySettings(store: fresh.store)
        let live = MySettings(store: fresh.again())
        let told = Mutex(0)
        let observer = NotificationCenter.default.addObserver(
            forName: AppSettingsObject.storedSettingsDidChangeNotification, object: live, queue: nil
        ) { _ in told.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        let seen = Mutex<[AppSettingsChange]>([])
        let events = live.changes
        let reading = Task { for await event in events { seen.withLock { $0.append(event) } } }
        defer { reading.cancel() }

        first.theme = .dark
        first.soundLevel = 0.25
        try first.synchronizeToUserDefaults()
        let second = MySettings(store: fresh.again())
        #expect(second.theme == .dark && second.soundLevel == 0.25)
        #expect(!second.hasUnsavedChanges && second.lastLoadError == nil)
        #expect(try await eventually { told.withLock { $0 } == 1 }, "the live object was not told of the save")
        #expect(try await eventually { seen.withLock { $0.contains(.storedSettingsChanged) } })

        // The later writer takes the other's settings and keeps its own.
        live.dontDimScreen = true
        try live.synchronizeToUserDefaults()
        #expect(live.theme == .dark && live.soundLevel == 0.25 && live.dontDimScreen)
        #expect(!live.hasUnsavedChanges)
        // The same setting on both sides: the later synchronization wins it, and says so.
        first.constellation = "Lyra"
        try first.synchronizeToUserDefaults()
        live.constellation = "Cygnus"
        try live.synchronizeToUserDefaults()
        #expect(try await eventually { seen.withLock { $0.contains(.mergeConflicts(["constellation"])) } })
        let loaded = MySettings(store: fresh.again())
        #expect(loaded.constellation == "Cygnus" && loaded.dontDimScreen && loaded.theme == .dark)
        // A `UserDefaults` of a named store's suite the library was not told of reads it too.
        if [.suite, .appGroup].contains(kind) {
            #expect(MySettings(userDefaults: StoreUnderTest.makeUserDefaults(suiteNamed: fresh.name)).theme == .dark)
        }
        // Nor does a store of another name see any of it.
        #expect(MySettings(store: StoreUnderTest(kind).store).theme == .light)
    }

    // MARK: What cannot be read

    /// What cannot be read is reported, never taken for nothing stored, and a save keeps it
    /// before it writes over it: the domain holds the set, a backup of what was there, and every
    /// other key.
    @Test("what cannot be read is reported, not taken for nothing, and kept", arguments: StoredDamage.cases)
    func unreadable(kind: StoreKind, damage: StoredDamage) throws {
        let fresh = StoreUnderTest(kind)
        let others: [String: Any] = ["plain": "the app's own"]
        fresh.setOthers(others)
        let key = MySettings(store: fresh.store).userDefaultsKey
        guard damage != .damagedDomainFile else {
            try aDamagedDomainFileIsReportedAndKept(fresh, key: key)
            return
        }
        let value: Any
        if damage == .damagedBytes {
            let writer = MySettings(store: fresh.store)
            writer.theme = .dark
            var bytes = try TestingHooks(object: writer).archivedBytes()
            bytes[bytes.count / 2] ^= 0xFF
            bytes.removeLast(10)
            value = bytes
        } else {
            value = ["written": "by someone else"]
        }
        fresh.setOthers([key: value])

        let settings = MySettings(store: fresh.again())
        switch (damage, settings.lastLoadError) {
        case (.damagedBytes, .unreadableArchive(key, _, _)?), (.notData, .notData(key, _)?): break
        default: Issue.record("\(damage): \(String(describing: settings.lastLoadError))")
        }
        #expect(settings.theme == .light)
        try expectHolds(fresh, others.merging([key: value]) { $1 }, "after the load, which writes nothing")

        settings.theme = .system
        try settings.synchronizeToUserDefaults()
        let stored = try fresh.everything()
        let backups = stored.keys.filter { $0.hasPrefix(key + ".unreadable-") }
        try #require(backups.count == 1, "\(stored.keys.sorted())")
        #expect(samePropertyList(try #require(stored[backups[0]]), value), "the backup is not what was there")
        #expect(Set(stored.keys) == Set(Array(others.keys) + [key] + backups))
        #expect(MySettings(store: fresh.again()).theme == .system)
        // Once kept, later saves keep no more.
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        #expect(try fresh.everything().keys.filter { $0.hasPrefix(key + ".unreadable-") }.count == 1)
    }

    /// Issue 40: a damaged domain file and no recovery copy: the load says so (not "nothing
    /// stored"), and the next save keeps the file's bytes beside it before replacing it.
    private func aDamagedDomainFileIsReportedAndKept(_ fresh: StoreUnderTest, key: String) throws {
        #if os(Linux) && !APPLE_STAND_INS
            let settings = MySettings(store: fresh.store)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            try FileManager.default.removeItem(at: try #require(fresh.store.recoveryCopyURL(forKey: key)))
            let path = try #require(fresh.store.domainFileURL).path
            let damaged = Data("<?xml version=\"1.0\"?><plist><dict><key>plain</key><stri".utf8)
            try damaged.write(to: URL(fileURLWithPath: path))
            // As another program's write is seen: CoreFoundation may still hold the file as it was.
            fresh.store.userDefaults.synchronize()

            let reloaded = MySettings(store: fresh.again())
            guard case .readFailed(key, let reason)? = reloaded.lastLoadError else {
                Issue.record("expected readFailed, got \(String(describing: reloaded.lastLoadError))")
                return
            }
            #expect(reason.contains("damaged") && reason.contains(path))
            #expect(reloaded.theme == .light)
            reloaded.theme = .system
            try reloaded.synchronizeToUserDefaults()
            let directory = (path as NSString).deletingLastPathComponent
            let kept = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".unreadable-") }
            try #require(kept.count == 1)
            defer { try? FileManager.default.removeItem(atPath: directory + "/" + kept[0]) }
            #expect(FileManager.default.contents(atPath: directory + "/" + kept[0]) == damaged)
            let again = MySettings(store: fresh.again())
            #expect(again.lastLoadError == nil)
            #expect(again.theme == .system)
        #else
            Issue.record("\(fresh.kind) has no domain file of the library's")
        #endif
    }
}
