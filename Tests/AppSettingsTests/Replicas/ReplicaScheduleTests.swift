import Foundation
import Testing

@testable import AppSettings

extension ProcessWideNotices {
    /// Random schedules over every replica of a setting (issue 46): assignments, saves, reverts and
    /// relaunches of two or three objects of one suite (object 0 syncing with a simulated iCloud
    /// device), other processes' saves, the Settings app's plain writes of the shown keys, looks at
    /// them, the `appsettings` tool's edits and removals, another device's changes of synced
    /// settings, deliveries of change notices and `refreshFromCloud()`; after each step every replica
    /// (the stored set and its versions, every shown key and its record, every live object's values
    /// and unsaved changes, this device's copy of the cloud) is compared with ``ReplicaModel``, a model
    /// of the rule table in Storage and Data Safety written from the documentation; at the end, with
    /// everything delivered, the cloud, the set and the other device must agree. The invariants are
    /// listed in `Support/ReplicaScheduleRun+Checks.swift`, the choices that keep each outcome
    /// determined in `Support/ReplicaScheduleRun.swift`.
    ///
    /// Seeded (SplitMix64), shrinking a failing schedule to a minimal one, printing the seed and the
    /// replay command. Seeds: `APPSETTINGS_REPLICA_SEEDS` (default 40 in `swift test`; `.ci/run` runs
    /// 1,000), `APPSETTINGS_REPLICA_SEED` replays one. In-memory suites, real ones with
    /// `APPSETTINGS_TESTS_STORE=userDefaults`. The mutation self-test (`scripts/replica-mutation-test.sh`)
    /// runs each deliberately broken variant of the rule (`ReplicaMutation`, compiled in only with
    /// `-DAPPSETTINGS_INJECTED_FAULTS`) and must see it caught by the invariant it breaks.
    @Suite("Random replica schedules", .capturedLibraryLog)
    struct ReplicaScheduleTests {
        static let shards = 4

        static var seeds: [UInt64] {
            let environment = ProcessInfo.processInfo.environment
            if let seed = environment["APPSETTINGS_REPLICA_SEED"].flatMap(UInt64.init) { return [seed] }
            let count = environment["APPSETTINGS_REPLICA_SEEDS"].flatMap(Int.init) ?? 40
            return (1...UInt64(max(count, 1))).map { $0 }
        }

        @Test("random schedules keep every replica as the rule table says", arguments: 0..<shards)
        func randomSchedules(shard: Int) {
            let seeds = Self.seeds.filter { Int($0 % UInt64(Self.shards)) == shard }
            var failures = 0
            var skipped = 0
            for seed in seeds {
                let schedule = ReplicaSchedule(seed: seed)
                let run = ReplicaScheduleRun(schedule)
                run.run()
                skipped += run.skipped.count
                guard !run.violations.isEmpty else { continue }
                failures += 1
                let report = Self.report(seed: seed, schedule: schedule, run: run)
                print(report)
                Issue.record(Comment(rawValue: report))
                if failures == 3 { break }
            }
            print(
                "replica schedules, shard \(shard): \(seeds.count) seeds, \(failures) with violations, "
                    + "\(skipped) steps not run (versions that would tie)")
        }

        /// The seed, the violations, the minimal schedule and the replay command.
        static func report(seed: UInt64, schedule: ReplicaSchedule, run: ReplicaScheduleRun) -> String {
            let minimal = schedule.shrunk()
            let replay = "APPSETTINGS_REPLICA_SEED=\(seed) swift test --filter ReplicaScheduleTests"
            let steps = "\(minimal.schedule.steps.count) of \(schedule.steps.count) steps"
            let notRun = minimal.run.skipped.sorted { $0.key < $1.key }.map {
                "  step \($0.key + 1) not run: \($0.value)"
            }
            return "seed \(seed) (replay: \(replay))\nviolations: \(run.violations.joined(separator: "; "))\n"
                + "minimal schedule (\(steps)):\n\(minimal.schedule)\n"
                + (notRun.isEmpty ? "" : notRun.joined(separator: "\n") + "\n")
                + "its violations:\n  " + minimal.run.violations.joined(separator: "\n  ")
        }

        /// The invariant each deliberate break of the rule breaks.
        static func invariant(brokenBy mutation: ReplicaMutation) -> String {
            switch mutation {
            case .replicaOverUnsavedChange, .pullWritesUnsavedChanges, .olderProposalWins: "[set]"
            case .keysAgainstBase, .seenTakenAgain: "[object]"
            }
        }

        @Test(
            "the schedules catch the deliberately broken variant of the rule compiled in",
            .enabled(if: ReplicaMutation.current != nil, "only in a build with -DAPPSETTINGS_INJECTED_FAULTS"))
        func mutationIsCaught() throws {
            let mutation = try #require(ReplicaMutation.current)
            let invariant = Self.invariant(brokenBy: mutation)
            for seed in UInt64(1)...600 {
                let schedule = ReplicaSchedule(seed: seed)
                let run = ReplicaScheduleRun(schedule)
                run.run()
                guard let caught = run.violations.first(where: { $0.hasPrefix(invariant) }) else { continue }
                let minimal = schedule.shrunk().schedule
                print(
                    "mutation \(mutation.rawValue): caught by seed \(seed): \(caught)\n"
                        + "minimal schedule (\(minimal.steps.count) of \(schedule.steps.count) steps):\n\(minimal)")
                return
            }
            Issue.record("mutation \(mutation.rawValue) was not caught by \(invariant) in 600 seeds")
        }
    }
}
