import Foundation
import Synchronization
import Testing

@testable import AppSettings

/// Many threads on one settings object at once: reads, writes, synchronizations, reverts and
/// `shared`. Run under `swift test --sanitize=thread` to check for data races.
@Suite("Concurrency", .capturedLibraryLog)
struct ConcurrencyTests {
    let suite = TemporarySuite.forSettings()

    /// Settings written one by one from many threads, with no rule between them.
    final class Mixed: AppSettingsObject, @unchecked Sendable {
        @Setting var counter = 0
        @Setting var label = "v0"
        @Setting var values = [0, 0]
    }

    /// A set whose three settings must always agree: `label == "v\(counter)"` and
    /// `values == [counter, counter, counter]`. It is only ever changed whole (by `update(from:)`,
    /// the resets and loads), so every state anyone can see must be whole: a snapshot
    /// (`dictionaryRepresentation()`), a stored archive, a load (`checkAfterDecode` records any
    /// torn set it is handed).
    final class Triple: AppSettingsObject, @unchecked Sendable {
        @Setting var counter = 0
        @Setting var label = "v0"
        @Setting var values = [0, 0, 0]

        /// Descriptions of the torn sets `checkAfterDecode` was handed, by any instance.
        static let tornLoads = Mutex<[String]>([])

        override func checkAfterDecode() {
            let (counter, label, values) = (self.counter, self.label, self.values)
            if label != "v\(counter)" || values != [counter, counter, counter] {
                Self.tornLoads.withLock { $0.append("\(counter) \(label) \(values)") }
            }
        }

        static func whole(_ counter: Int) -> [String: Any] {
            ["counter": counter, "label": "v\(counter)", "values": [counter, counter, counter]]
        }

        /// Whether a dictionary or stored form of the set is whole.
        static func isWhole(_ dictionary: [String: Any]) -> Bool {
            guard let counter = dictionary["counter"] as? Int else { return false }
            return dictionary["label"] as? String == "v\(counter)"
                && dictionary["values"] as? [Int] == [counter, counter, counter]
        }

        static func isWhole(_ stored: [String: StoredValue]) -> Bool {
            guard case .integer(let counter) = stored["counter"] else { return false }
            return stored["label"] == .string("v\(counter)")
                && stored["values"] == .array(Array(repeating: .integer(counter), count: 3))
        }
    }

    /// Each thread runs every operation the same number of times (a count, not a duration, so a
    /// slow or busy machine runs the same test), each thread starting at another one.
    @Test func eightThreadsMixingEveryOperation() throws {
        let settings = Mixed(userDefaults: suite.userDefaults)
        let other = Mixed(userDefaults: suite.another())
        let roundsOfEveryOperation = 40
        let torn = Mutex(0)
        let operations = Mutex([Int](repeating: 0, count: 8))
        let errors = Mutex<[String]>([])
        Threads.run(8) { index in
            for count in 1...(8 * roundsOfEveryOperation) {
                let operation = (index + count) % 8
                operations.withLock { $0[operation] += 1 }
                switch operation {
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
                    // (`shared` is exercised in SharedInstanceTests, which owns `.standard`.)
                    _ = settings.lastLoadError
                    _ = settings.counter
                }
            }
        }
        #expect(torn.withLock { $0 } == 0)
        #expect(errors.withLock { $0 } == [])
        #expect(operations.withLock { $0 } == [Int](repeating: 8 * roundsOfEveryOperation, count: 8))
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
        let writers = EightCounters.counters.indices.map { index in
            // Half on a UserDefaults of their own, half sharing one.
            EightCounters(userDefaults: index.isMultiple(of: 2) ? suite.another() : suite.userDefaults)
        }
        Threads.run(writers.count) { index in
            let (settings, counter) = (writers[index], EightCounters.counters[index])
            for _ in 0..<rounds {
                settings[keyPath: counter] += 1
                do { try settings.synchronizeToUserDefaults() } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(errors.withLock { $0 } == [])
        let loaded = EightCounters(userDefaults: suite.another())
        #expect(loaded.lastLoadError == nil)
        for counter in EightCounters.counters { #expect(loaded[keyPath: counter] == rounds) }
    }

    /// Counts the triples checked and keeps the first torn ones.
    private final class Tally: Sendable {
        let observed = Mutex(0)
        let torn = Mutex<[String]>([])

        @Sendable func check(_ whole: Bool, _ what: @autoclosure () -> String) {
            observed.withLock { $0 += 1 }
            if !whole { torn.withLock { if $0.count < 10 { $0.append(what()) } } }
        }
    }

    /// Two writers change the set whole, while others snapshot it, synchronize it, reload it in
    /// another instance, reset it to developer defaults and read what is stored: every triple
    /// seen is whole, in memory, on disk and in each load. Counts are reported on failure. Each
    /// checking thread runs a number of rounds (not a duration: a slow machine runs the same
    /// test); the two writers go on until the last checker is done.
    @Test func everyObservedTripleIsWhole() throws {
        Triple.tornLoads.withLock { $0 = [] }
        let settings = Triple(userDefaults: suite.userDefaults)
        let other = Triple(userDefaults: suite.another())
        let checkingRounds = 300
        let checkersDone = Mutex(0)
        let tally = Tally()
        let errors = Mutex<[String]>([])
        let check = tally.check
        let suite = self.suite
        Threads.run(6) { index in
            var count = 0
            while index < 2 ? checkersDone.withLock({ $0 }) < 4 : count < checkingRounds {
                count += 1
                do {
                    switch index {
                    case 0, 1:
                        try settings.update(from: Triple.whole(count * 2 + index))
                    case 2:
                        let snapshot = settings.dictionaryRepresentation()
                        check(Triple.isWhole(snapshot), "snapshot \(snapshot)")
                    case 3:
                        try settings.synchronizeToUserDefaults()
                        if let data = suite.another().data(forKey: settings.userDefaultsKey) {
                            let stored = try StoredSetContents(data).settings
                            check(Triple.isWhole(stored), "stored \(stored)")
                        }
                    case 4:
                        try other.resetToUserDefaults()
                        let snapshot = other.dictionaryRepresentation()
                        check(Triple.isWhole(snapshot), "reloaded \(snapshot)")
                    default:
                        if count.isMultiple(of: 50) { settings.resetToDeveloperDefaults() }
                        try settings.resetToUserDefaults()
                        let snapshot = settings.dictionaryRepresentation()
                        check(Triple.isWhole(snapshot), "reset \(snapshot)")
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
            if index >= 2 { checkersDone.withLock { $0 += 1 } }
        }
        let tornLoads = Triple.tornLoads.withLock { $0 }
        let seen = tally.observed.withLock { $0 }
        #expect(tally.torn.withLock { $0 } == [], "torn triples among \(seen) observed")
        #expect(tornLoads == [], "torn loads")
        #expect(errors.withLock { $0 } == [])
        // The snapshot thread and both reloading threads check once a round; the synchronizing
        // one too, once anything is stored.
        #expect(seen >= 3 * checkingRounds, "only \(seen) triples observed")
    }

    /// Runs `duringLoad` in `checkAfterDecode()` of loads bound to `duringLoadOf`: an automatic
    /// reload loads a scratch copy between its check that the object is clean and the adoption,
    /// so an assignment made there lands exactly in that window.
    final class ReloadProbe: AppSettingsObject, @unchecked Sendable {
        @Setting var assigned = 0
        @Setting var written = 0
        static let duringLoad = Mutex<(userDefaults: UserDefaults, run: @Sendable () -> Void)?>(nil)

        override func checkAfterDecode() {
            let hook = Self.duringLoad.withLock { hook -> (@Sendable () -> Void)? in
                guard let current = hook, current.userDefaults === userDefaults else { return nil }
                hook = nil  // once
                return current.run
            }
            hook?()
        }
    }

    /// An object that reloads by itself when another writer stores its set: an assignment made
    /// while that reload is on its way stays, unsaved; the reload takes the other settings.
    @Test func anAssignmentDuringAnAutomaticReloadIsKept() throws {
        let readerDefaults = suite.userDefaults
        let reader = ReloadProbe(userDefaults: readerDefaults)
        reader.reloadsWhenStoredSettingsChange = true
        let writer = ReloadProbe(userDefaults: suite.another())
        for round in 1...5 {
            try reader.resetToUserDefaults()  // clean, so that the next store reloads it
            ReloadProbe.duringLoad.withLock { $0 = (readerDefaults, { reader.assigned = round }) }
            writer.written = round
            try writer.synchronizeToUserDefaults()  // tells `reader`, which reloads: it is clean
            #expect(ReloadProbe.duringLoad.withLock { $0 } == nil, "round \(round): the reload ran")
            #expect(reader.assigned == round, "round \(round): the assignment was overwritten by the reload")
            #expect(reader.written == round, "round \(round): the reload took the stored value")
            #expect(reader.hasUnsavedChanges, "round \(round): the assignment is unsaved")
        }
    }
}
