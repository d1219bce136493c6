import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// Many threads on one settings object at once: reads, writes, synchronizations, reverts and
/// `shared`. Run under `swift test --sanitize=thread` to check for data races.
@Suite("Concurrency")
struct ConcurrencyTests {
    let suite = TemporarySuite()

    /// A set whose three settings must always agree: `label == "v\(counter)"` and
    /// `values == [counter, counter]`, enforced by `checkAfterDecode` and written together.
    final class Triple: AppSettingsObject, @unchecked Sendable {
        @Setting var counter = 0
        @Setting var label = "v0"
        @Setting var values = [0, 0]
    }

    @Test func eightThreadsMixingEveryOperation() throws {
        let settings = Triple(userDefaults: suite.userDefaults)
        let other = Triple(userDefaults: suite.another())
        let deadline = Date().addingTimeInterval(2)
        let torn = Mutex(0)
        let operations = Mutex(0)
        let errors = Mutex<[String]>([])
        let threads = (0..<8).map { index in
            Thread {
                var count = 0
                while Date() < deadline {
                    count += 1
                    switch (index + count) % 8 {
                    case 0, 1:
                        // A long string: a torn read would show a mix of two writes.
                        let value = String(repeating: "\(count % 10)", count: 64)
                        settings.label = value
                        let read = settings.label
                        if Set(read).count != 1 { torn.withLock { $0 += 1 } }
                    case 2:
                        settings.values = Array(repeating: count, count: 32)
                        if Set(settings.values).count > 1 { torn.withLock { $0 += 1 } }
                    case 3:
                        settings.counter += 1
                    case 4:
                        do { try settings.synchronizeToUserDefaults() } catch {
                            errors.withLock { $0.append("\(error)") }
                        }
                    case 5:
                        do { try other.resetToUserDefaults() } catch { errors.withLock { $0.append("\(error)") } }
                    case 6:
                        _ = settings.dictionaryRepresentation()
                        _ = settings.hasUnsavedChanges
                        _ = settings.description
                    default:
                        _ = ConcurrencyShared.shared.value
                        ConcurrencyShared.shared.value = count
                    }
                }
                operations.withLock { $0 += count }
            }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(torn.withLock { $0 } == 0)
        #expect(errors.withLock { $0 } == [])
        #expect(operations.withLock { $0 } > 100)
        try settings.synchronizeToUserDefaults()
        try other.resetToUserDefaults()
        #expect(other == settings)
    }

    /// Eight settings, one per thread of `eightWritersOfOneSetLoseNoChange`.
    final class EightCounters: AppSettingsObject, @unchecked Sendable {
        @Setting var counter0 = 0
        @Setting var counter1 = 0
        @Setting var counter2 = 0
        @Setting var counter3 = 0
        @Setting var counter4 = 0
        @Setting var counter5 = 0
        @Setting var counter6 = 0
        @Setting var counter7 = 0

        static let counters: [any ReferenceWritableKeyPath<EightCounters, Int> & Sendable] = [
            \.counter0, \.counter1, \.counter2, \.counter3, \.counter4, \.counter5, \.counter6, \.counter7,
        ]
    }

    /// Eight objects of one set, each on its own thread, each counting its own setting up and
    /// synchronizing: every synchronization merges, and no count is lost.
    @Test func eightWritersOfOneSetLoseNoChange() throws {
        let rounds = 40
        let errors = Mutex<[String]>([])
        let threads = EightCounters.counters.enumerated().map { index, counter in
            // Half on a UserDefaults of their own, half sharing one.
            let settings = EightCounters(userDefaults: index.isMultiple(of: 2) ? suite.another() : suite.userDefaults)
            return Thread {
                for _ in 0..<rounds {
                    settings[keyPath: counter] += 1
                    do { try settings.synchronizeToUserDefaults() } catch {
                        errors.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(10_000) }
        #expect(errors.withLock { $0 } == [])
        let loaded = EightCounters(userDefaults: suite.another())
        #expect(loaded.lastLoadError == nil)
        for counter in EightCounters.counters { #expect(loaded[keyPath: counter] == rounds) }
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
}

final class ConcurrencyShared: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.ConcurrencyShared" }
}

final class ConcurrencyShared2: AppSettingsObject, @unchecked Sendable {
    @Setting var value = 0
    override var userDefaultsKeyPostfix: String { "AppSettingsTests.ConcurrencyShared2" }
}
