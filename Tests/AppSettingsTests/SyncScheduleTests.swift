import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// Random schedules on the strict simulator (issue 28): 2 to 5 devices, every kind of synced
/// setting, edits, saves, uploads and downloads one device at a time (partial, offline), early
/// notices, notices from inside `synchronize()` or only when asked, relaunches, stop and start,
/// revert, reset, removal, signing out and into another account (one already holding data), an
/// over-quota value; then everything delivered and the properties checked:
/// - the devices of one account converge, and the cloud holds what they show;
/// - each value is one written on that account, or the default;
/// - a write made after its device had seen every other write to that setting (no concurrent
///   write on that account) is never lost;
/// - local settings never leave their device;
/// - a fresh object shows what the live one shows;
/// - the cloud holds only the account's values (never an over-quota one);
/// - a step causes a bounded number of writes to the store; no too-long key is ever written.
///
/// Seeded (SplitMix64), shrinking a failing schedule to a minimal one, printing the seed. Seeds:
/// `APPSETTINGS_SYNC_SEEDS` (default 120 in `swift test`; `.ci/run` runs 1,000),
/// `APPSETTINGS_SYNC_SEED` replays one. The mutation self-test runs deliberately broken variants
/// of the sync rules (`CloudSyncMutation`) and must see each one caught.
@Suite("Random sync schedules", .capturedLibraryLog)
struct SyncScheduleTests {
    static let shards = 4

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["APPSETTINGS_SYNC_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["APPSETTINGS_SYNC_SEEDS"].flatMap(Int.init) ?? 120
        return (1...UInt64(max(count, 1))).map { $0 }
    }

    @Test("random schedules on the strict simulator converge and keep every promise", arguments: 0..<shards)
    func randomSchedules(shard: Int) {
        let seeds = Self.seeds.filter { Int($0 % UInt64(Self.shards)) == shard }
        var failures = 0
        for seed in seeds {
            let schedule = Schedule(seed: seed)
            let violations = ScheduleRun(schedule).run()
            guard !violations.isEmpty else { continue }
            failures += 1
            let minimal = schedule.shrunk()
            let replay = "APPSETTINGS_SYNC_SEED=\(seed) swift test --filter SyncScheduleTests"
            let found: String = violations.joined(separator: "; ")
            let steps: String = "\(minimal.schedule.steps.count) of \(schedule.steps.count) steps"
            let minimalText: String = minimal.schedule.description
            let minimalFound: String = minimal.violations.joined(separator: "; ")
            let report: String =
                "seed \(seed) (replay: \(replay))\nviolations: \(found)\nminimal schedule (\(steps)):\n"
                + minimalText + "\nits violations: " + minimalFound
            print(report)
            Issue.record(Comment(rawValue: report))
            if failures == 3 { break }
        }
        print("sync schedules, shard \(shard): \(seeds.count) seeds, \(failures) with violations")
    }

    @Test("the suite catches each deliberately broken variant of the sync rules", arguments: CloudSyncMutation.allCases)
    func mutationIsCaught(mutation: CloudSyncMutation) {
        CloudSyncMutation.$current.withValue(mutation) {
            for seed in UInt64(1)...400 {
                let violations = ScheduleRun(Schedule(seed: seed)).run()
                if !violations.isEmpty {
                    print("mutation \(mutation): caught by seed \(seed): \(violations[0])")
                    return
                }
            }
            Issue.record("mutation \(mutation) was not caught by 400 seeds")
        }
    }
}

/// The settings the schedules sync: every kind of synced value, and a local one.
final class ScheduleSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(syncs: true) var name = "default"
    @Setting(syncs: true) var count = 0
    @Setting(syncs: true) var note: String? = nil
    @Setting(syncs: true) var tags: [String?] = []
    @Setting(syncs: true) var blob = Data()
    @Setting var local = "default"

    static let syncedNames = ["name", "count", "note", "tags", "blob"]

    /// Writes the value of write `id` into synced setting `setting`: each write's value is its own,
    /// except a `nil` note, which is the default.
    func write(_ id: Int, into setting: Int, big: Bool = false) {
        switch setting {
        case 0: name = "w\(id)"
        case 1: count = id
        case 2: note = id.isMultiple(of: 4) ? nil : "w\(id)"
        case 3: tags = ["w\(id)", nil]
        default:
            var data = withUnsafeBytes(of: Int64(id).littleEndian) { Data($0) }
            if big { data.append(Data(count: 1_100_000)) }
            blob = data
        }
    }

    /// What setting `setting` shows: "default", "w<id>", "w<id>!big", or "invalid: …".
    func identity(of setting: Int) -> String {
        switch setting {
        case 0: Self.identity(ofCloud: name, setting: 0)
        case 1: Self.identity(ofCloud: count, setting: 1)
        case 2: Self.identity(ofCloud: note, setting: 2)
        case 3: Self.identity(ofCloud: tags.map { $0 as Any? }, setting: 3)
        default: Self.identity(ofCloud: blob, setting: 4)
        }
    }

    static func identity(ofCloud value: Any?, setting: Int) -> String {
        switch setting {
        case 0:
            guard let value = value as? String else { return value == nil ? "default" : "invalid: \(value!)" }
            return value == "default" ? "default" : value
        case 1:
            guard let value = value as? Int else { return value == nil ? "default" : "invalid: \(value!)" }
            return value == 0 ? "default" : "w\(value)"
        case 2:
            guard let value = value as? String else { return "default" }
            return value
        case 3:
            if value == nil { return "default" }
            guard let elements = value as? [Any?] ?? (value as? [Any])?.map({ $0 as Any? }) else {
                return "invalid: \(value!)"
            }
            if elements.isEmpty { return "default" }
            // The nil travels (defect 4): the cloud form marks it `["$null": true]`.
            let second = elements.count == 2 ? elements[1] : "missing"
            let secondIsNil = second == nil || (second as? [String: Any])?["$null"] != nil || second is NSNull
            guard elements.count == 2, let first = elements[0] as? String, secondIsNil else {
                return "invalid: \(elements)"
            }
            return first
        default:
            guard let data = value as? Data else { return value == nil ? "default" : "invalid: \(value!)" }
            if data.isEmpty { return "default" }
            guard data.count >= 8 else { return "invalid: \(data.count) bytes" }
            let id = data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }.littleEndian
            return "w\(id)" + (data.count > 1_000_000 ? "!big" : "")
        }
    }
}

/// A store that counts the writes the library makes through it.
final class CountingStore: CloudKeyValueStore, @unchecked Sendable {
    let device: CloudKeyValueStoreSimulator.Device
    let writes = Protected(0)
    let synchronizations = Protected(0)
    init(_ device: CloudKeyValueStoreSimulator.Device) { self.device = device }
    func object(forKey key: String) -> Any? { device.object(forKey: key) }
    func set(_ value: Any?, forKey key: String) {
        writes.withLock { $0 += 1 }
        device.set(value, forKey: key)
    }
    func removeObject(forKey key: String) {
        writes.withLock { $0 += 1 }
        device.removeObject(forKey: key)
    }
    func synchronize() -> Bool {
        synchronizations.withLock { $0 += 1 }
        return device.synchronize()
    }
    func addChangeObserver(
        _ observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void
    ) -> any NSObjectProtocol { device.addChangeObserver(observer) }
    func removeChangeObserver(_ token: any NSObjectProtocol) { device.removeChangeObserver(token) }
    var account: CloudKeyValueStoreAccount { device.account }
}

/// SplitMix64: a seeded generator that is the same on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One schedule: its devices, the simulator's options, and its steps.
struct Schedule: CustomStringConvertible {
    enum Step: CustomStringConvertible {
        case edit(device: Int, setting: Int, id: Int, save: Bool)
        case bigBlob(device: Int, id: Int)
        case editLocal(device: Int, id: Int)
        case save(Int)
        case revert(Int)
        case reset(Int)
        case remove(Int)
        case upload(Int, all: Bool)
        case download(Int, all: Bool)
        case notices(Int)
        case early(Int)
        case refresh(Int)
        case relaunch(Int)
        case stop(Int)
        case start(Int)
        case online(Int, Bool)
        case signOut(Int)
        case signIn(Int, account: Int)
        case deliverAll

        var description: String {
            switch self {
            case .edit(let device, let setting, let id, let save):
                "device \(device): \(ScheduleSettings.syncedNames[setting]) = w\(id)\(save ? ", saved" : "")"
            case .bigBlob(let device, let id): "device \(device): blob = w\(id), over 1 MB, saved"
            case .editLocal(let device, let id): "device \(device): local = d\(device)-w\(id), saved"
            case .save(let device): "device \(device): save"
            case .revert(let device): "device \(device): resetToUserDefaults()"
            case .reset(let device): "device \(device): resetToDeveloperDefaults(), saved"
            case .remove(let device): "device \(device): removeFromUserDefaults()"
            case .upload(let device, let all): "device \(device): upload \(all ? "all" : "one")"
            case .download(let device, let all): "device \(device): download \(all ? "all" : "one")"
            case .notices(let device): "device \(device): notices delivered"
            case .early(let device): "device \(device): a notice before its data"
            case .refresh(let device): "device \(device): refreshFromCloud()"
            case .relaunch(let device): "device \(device): relaunch"
            case .stop(let device): "device \(device): stopSyncing()"
            case .start(let device): "device \(device): startSyncing()"
            case .online(let device, let online): "device \(device): \(online ? "online" : "offline")"
            case .signOut(let device): "device \(device): signed out"
            case .signIn(let device, let account): "device \(device): signed into account \(account)"
            case .deliverAll: "deliver everything"
            }
        }
    }

    var seed: UInt64
    var deviceCount: Int
    var options: CloudKeyValueStoreSimulator.Options
    var steps: [Step]

    init(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        self.seed = seed
        deviceCount = Int.random(in: 2...5, using: &random)
        options = .init(
            conflictResolution: Bool.random(using: &random) ? .newestWriteTime : .lastUploadWins,
            noticeDelivery: [.immediately, .manual, .insideSynchronize].randomElement(using: &random)!,
            omitsChangedKeys: Bool.random(using: &random))
        var steps: [Step] = []
        let count = Int.random(in: 10...40, using: &random)
        for index in 0..<count {
            let device = Int.random(in: 0..<deviceCount, using: &random)
            let id = index + 1
            let roll = Int.random(in: 0..<100, using: &random)
            let step: Step =
                switch roll {
                case 0..<28:
                    .edit(
                        device: device, setting: Int.random(in: 0..<4, using: &random), id: id,
                        save: Int.random(in: 0..<5, using: &random) != 0)
                case 28..<30: .edit(device: device, setting: 4, id: id, save: true)
                case 30..<31: .bigBlob(device: device, id: id)
                case 31..<34: .editLocal(device: device, id: id)
                case 34..<37: .save(device)
                case 37..<39: .revert(device)
                case 39..<41: .reset(device)
                case 41..<42: .remove(device)
                case 42..<51: .upload(device, all: Bool.random(using: &random))
                case 51..<60: .download(device, all: Bool.random(using: &random))
                case 60..<66: .notices(device)
                case 66..<68: .early(device)
                case 68..<71: .refresh(device)
                case 71..<74: .relaunch(device)
                case 74..<76: .stop(device)
                case 76..<79: .start(device)
                case 79..<83: .online(device, Bool.random(using: &random))
                case 83..<85: .signOut(device)
                case 85..<88: .signIn(device, account: Int.random(in: 0...1, using: &random))
                default: .deliverAll
                }
            steps.append(step)
        }
        self.steps = steps
    }

    var description: String {
        "  \(deviceCount) devices, \(options.conflictResolution), notices \(options.noticeDelivery)"
            + (options.omitsChangedKeys ? " without keys" : "") + "\n"
            + steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }

    /// A smaller schedule that still fails (steps removed in halving chunks while it fails).
    func shrunk() -> (schedule: Schedule, violations: [String]) {
        var current = self
        var violations = ScheduleRun(current).run()
        var chunk = max(current.steps.count / 2, 1)
        var attempts = 0
        while chunk >= 1 && attempts < 300 {
            var index = 0
            var removedAny = false
            while index < current.steps.count && attempts < 300 {
                var candidate = current
                candidate.steps.removeSubrange(index..<min(index + chunk, candidate.steps.count))
                attempts += 1
                let found = ScheduleRun(candidate).run()
                if found.isEmpty {
                    index += chunk
                } else {
                    current = candidate
                    violations = found
                    removedAny = true
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return (current, violations)
    }
}

/// One run of a schedule on the strict simulator, with real `UserDefaults` suites.
final class ScheduleRun {
    /// A write of a synced setting, as the harness saw it.
    struct Write {
        var device: Int
        var setting: Int
        var value: String
        /// The accounts it may belong to: the one signed into when it was saved, and the one the
        /// device's values came from.
        var accounts: Set<Int>
        /// The writes its device had seen for this setting when it was made.
        var knowledge: Set<Int>
        var saved = false
        var abandoned = false
    }

    final class Device {
        let index: Int
        let suite = TemporarySuite.forSettings()
        let store: CloudKeyValueStoreSimulator.Device
        let counting: CountingStore
        var settings: ScheduleSettings
        var syncing = false
        var lastAccount: Int?
        var knowledgeAccount: Int?
        var knowledge: [Int: Set<Int>] = [:]
        var unsaved: [Int: Int] = [:]
        var writtenWhileStopped: [Int] = []
        /// The account the device was on when it stopped syncing.
        var stoppedAccount: Int?
        /// Whether it ever signed into another account than its first.
        var switchedAccounts = false
        /// Whether its set was removed while no account could be met: the next one met takes it.
        var unboundRecord = false
        var localValue = "default"

        init(index: Int, store: CloudKeyValueStoreSimulator.Device) {
            self.index = index
            self.store = store
            counting = CountingStore(store)
            settings = ScheduleSettings(userDefaults: suite.userDefaults)
            lastAccount = 0
        }
    }

    let schedule: Schedule
    let cloud: CloudKeyValueStoreSimulator
    let accounts: [CloudKeyValueStoreSimulator.Account]
    var devices: [Device] = []
    var writes: [Int: Write] = [:]
    var violations: [String] = []
    var nextID = 1_000_000

    init(_ schedule: Schedule) {
        self.schedule = schedule
        cloud = CloudKeyValueStoreSimulator(options: schedule.options)
        // The second account already holds values written by a device of its own.
        let preexisting = 900_001
        accounts = [
            cloud.firstAccount,
            cloud.makeAccount(holding: [
                "AppSettings.ScheduleSettings.name": ["$version": 3, "$tag": 7, "$value": "w\(preexisting)"]
            ]),
        ]
        writes[preexisting] = Write(
            device: -1, setting: 0, value: "w\(preexisting)", accounts: [1], knowledge: [], saved: true)
    }

    func run() -> [String] {
        for index in 0..<schedule.deviceCount {
            let device = Device(index: index, store: cloud.makeDevice())
            devices.append(device)
            perform { try device.settings.startSyncing(with: device.counting) }
            device.syncing = true
        }
        for step in schedule.steps {
            let before = devices.map { $0.counting.writes.withLock { $0 } }
            run(step)
            for (device, count) in zip(devices, before) {
                let made = device.counting.writes.withLock { $0 } - count
                // Per step, each synced setting is sent at most twice (a save, and a pull's correction).
                if made > 2 * ScheduleSettings.syncedNames.count {
                    violations.append("step '\(step)': device \(device.index) wrote \(made) values to its store")
                }
            }
            sample()
            if violations.count > 5 { break }
        }
        settle()
        check()
        return violations
    }

    private func perform(_ body: () throws -> Void) {
        do { try body() } catch { violations.append("unexpected error: \(error)") }
    }

    private func account(of device: Device) -> Int? {
        guard case .signedIn(let name) = device.store.account else { return nil }
        return Int(name.dropFirst("account-".count))
    }

    private func newWrite(on device: Device, setting: Int, id: Int, value: String) {
        let current = account(of: device)
        var write = Write(
            device: device.index, setting: setting, value: value,
            accounts: Set([current, device.lastAccount].compactMap { $0 }),
            knowledge: device.knowledge[setting] ?? [])
        if current == nil { write.accounts = Set([device.lastAccount].compactMap { $0 }) }
        writes[id] = write
        device.knowledge[setting, default: []].insert(id)
        device.unsaved[setting] = id
    }

    private func saved(_ device: Device) {
        for (_, id) in device.unsaved {
            writes[id]?.saved = true
            if let current = account(of: device) { writes[id]?.accounts.insert(current) }
            // Saved signed out: it belongs to the account whose values the set holds, which the
            // harness cannot tell after a switch or a removal; any account may get it.
            if account(of: device) == nil && (device.switchedAccounts || device.unboundRecord) {
                writes[id]?.accounts = Set(accounts.indices)
            }
            if !device.syncing {
                // Saved while not syncing: the set's values belong to the account it last synced with.
                writes[id]?.accounts = Set([device.stoppedAccount].compactMap { $0 })
                device.writtenWhileStopped.append(id)
            }
            // After a removal with no account to meet, the set belongs to the next account met.
            if device.unboundRecord { writes[id]?.accounts = Set(accounts.indices) }
        }
        device.unsaved = [:]
    }

    private func run(_ step: Schedule.Step) {
        switch step {
        case .edit(let index, let setting, let id, let save):
            let device = devices[index]
            device.settings.write(id, into: setting)
            newWrite(on: device, setting: setting, id: id, value: device.settings.identity(of: setting))
            if save { self.save(device) }
        case .bigBlob(let index, let id):
            let device = devices[index]
            device.settings.write(id, into: 4, big: true)
            newWrite(on: device, setting: 4, id: id, value: device.settings.identity(of: 4))
            save(device)
        case .editLocal(let index, let id):
            let device = devices[index]
            device.settings.local = "d\(index)-w\(id)"
            save(device)
        case .save(let index):
            save(devices[index])
        case .revert(let index):
            let device = devices[index]
            perform { try device.settings.resetToUserDefaults() }
            device.unsaved = [:]
        case .reset(let index):
            let device = devices[index]
            let before = (0..<5).map { device.settings.identity(of: $0) }
            device.settings.resetToDeveloperDefaults()
            for setting in 0..<5 where before[setting] != "default" {
                nextID += 1
                newWrite(on: device, setting: setting, id: nextID, value: "default")
            }
            save(device)
        case .remove(let index):
            let device = devices[index]
            perform { try device.settings.removeFromUserDefaults() }
            if account(of: device) == nil || !device.syncing { device.unboundRecord = true }
            // The device's copy goes, its changes not yet uploaded with it (those already in its
            // store's local copy may still travel).
            for (id, write) in writes where write.device == index { writes[id]?.abandoned = true }
            device.writtenWhileStopped = []
            device.unsaved = [:]
        case .upload(let index, let all):
            cloud.upload(from: devices[index].store, count: all ? .max : 1)
        case .download(let index, let all):
            cloud.download(to: devices[index].store, count: all ? .max : 1)
        case .notices(let index):
            cloud.deliverNotices(to: devices[index].store)
        case .early(let index):
            cloud.announceEarly(to: devices[index].store)
        case .refresh(let index):
            perform { try devices[index].settings.refreshFromCloud() }
        case .relaunch(let index):
            let device = devices[index]
            device.settings.stopSyncing()
            device.settings = ScheduleSettings(userDefaults: device.suite.another())
            device.unsaved = [:]
            if device.syncing { perform { try device.settings.startSyncing(with: device.counting) } }
        case .stop(let index):
            let device = devices[index]
            device.settings.stopSyncing()
            if device.syncing { device.stoppedAccount = account(of: device) ?? device.lastAccount }
            device.syncing = false
        case .start(let index):
            let device = devices[index]
            abandonIfAccountChanged(device)
            perform { try device.settings.startSyncing(with: device.counting) }
            device.syncing = true
            device.writtenWhileStopped = []
        case .online(let index, let online):
            cloud.setOnline(online, for: devices[index].store)
        case .signOut(let index):
            cloud.signOut(devices[index].store)
        case .signIn(let index, let account):
            let device = devices[index]
            if let last = device.lastAccount, last != account {
                device.switchedAccounts = true
                // Its writes not yet on their account never will be: they are the old account's.
                for (id, write) in writes where write.device == index { writes[id]?.abandoned = true }
            }
            cloud.signIn(device.store, to: accounts[account])
            device.lastAccount = account
        case .deliverAll:
            cloud.deliverChanges()
        }
    }

    /// Starting again on another account than the one it stopped on: what it saved meanwhile
    /// belongs to the old account and is not sent to the new one.
    private func abandonIfAccountChanged(_ device: Device) {
        guard !device.syncing, let current = account(of: device), current != device.stoppedAccount else { return }
        for id in device.writtenWhileStopped { writes[id]?.abandoned = true }
    }

    private func save(_ device: Device) {
        perform { try device.settings.synchronizeToUserDefaults() }
        saved(device)
    }

    /// What each device shows now: what it has seen.
    private func sample() {
        for device in devices {
            if device.syncing && account(of: device) != nil { device.unboundRecord = false }
            let current = account(of: device) ?? device.lastAccount
            if current != device.knowledgeAccount {
                device.knowledge = [:]
                device.knowledgeAccount = current
            }
            for setting in 0..<5 {
                let value = device.settings.identity(of: setting)
                guard value.hasPrefix("w"), !value.hasSuffix("!big"), let id = Int(value.dropFirst()) else { continue }
                device.knowledge[setting, default: []].insert(id)
                device.knowledge[setting]?.formUnion(writes[id]?.knowledge ?? [])
            }
            let local = device.settings.local
            if local != "default" && !local.hasPrefix("d\(device.index)-") {
                violations.append("device \(device.index) shows another device's local value \(local)")
            }
        }
    }

    /// Everything delivered: devices back online, signed in, syncing, saved, and told.
    private func settle() {
        for device in devices {
            cloud.setOnline(true, for: device.store)
            if account(of: device) == nil { cloud.signIn(device.store, to: accounts[device.lastAccount ?? 0]) }
            if !device.syncing {
                abandonIfAccountChanged(device)
                perform { try device.settings.startSyncing(with: device.counting) }
                device.syncing = true
            }
        }
        // Rounds until a round moves nothing (at most 4): the app saving, iCloud moving
        // everything, each app returning to the foreground.
        for _ in 0..<4 {
            let before = devices.map { device in (0..<5).map { device.settings.identity(of: $0) } }
            let writesBefore = devices.map { $0.counting.writes.withLock { $0 } }
            for device in devices { save(device) }
            cloud.deliverChanges()
            for device in devices { perform { try device.settings.refreshFromCloud() } }
            cloud.deliverChanges()
            sample()
            let after = devices.map { device in (0..<5).map { device.settings.identity(of: $0) } }
            if after == before && devices.map({ $0.counting.writes.withLock { $0 } }) == writesBefore { break }
        }
    }

    private func check() {
        if !cloud.runtimeErrors.isEmpty { violations.append("runtime errors: \(cloud.runtimeErrors)") }
        for device in devices {
            // A fresh object shows what the live one shows.
            let fresh = ScheduleSettings(userDefaults: device.suite.another())
            for setting in 0..<5 where fresh.identity(of: setting) != device.settings.identity(of: setting) {
                violations.append(
                    "device \(device.index): a fresh object shows \(ScheduleSettings.syncedNames[setting]) = "
                        + "\(fresh.identity(of: setting)), the live one \(device.settings.identity(of: setting))")
            }
            if fresh.local != device.settings.local { violations.append("device \(device.index): local differs") }
        }
        for (accountIndex, account) in accounts.enumerated() {
            let members = devices.filter { self.account(of: $0) == accountIndex }
            let server = cloud.serverValues(of: account)
            for key in server.keys
            where !key.hasPrefix("AppSettings.ScheduleSettings.")
                || ScheduleSettings.syncedNames.allSatisfy({ key != "AppSettings.ScheduleSettings.\($0)" })
            {
                violations.append("account \(accountIndex): the cloud holds \(key), not a synced setting")
            }
            for setting in 0..<5 {
                let name = ScheduleSettings.syncedNames[setting]
                let cloudValue = server["AppSettings.ScheduleSettings.\(name)"].map { value -> String in
                    guard let envelope = value as? [String: Any], envelope["$version"] != nil else { return "raw" }
                    return ScheduleSettings.identity(ofCloud: envelope["$value"], setting: setting)
                }
                if let cloudValue { checkBelongs(cloudValue, setting: setting, account: accountIndex, to: "the cloud") }
                let shown = members.map { $0.settings.identity(of: setting) }
                for (device, value) in zip(members, shown) {
                    checkBelongs(value, setting: setting, account: accountIndex, to: "device \(device.index)")
                }
                // Convergence (a device keeping an over-quota value of its own is left out: it is kept
                // there and reported, never sent).
                let comparable = shown.filter { !$0.hasSuffix("!big") }
                if Set(comparable).count > 1 {
                    violations.append("account \(accountIndex): devices disagree on \(name): \(shown)")
                }
                if let first = comparable.first, first != (cloudValue ?? "default") {
                    violations.append(
                        "account \(accountIndex): devices show \(name) = \(first), the cloud \(cloudValue ?? "nothing")"
                    )
                }
                if let first = comparable.first { checkNotLost(final: first, setting: setting, account: accountIndex) }
            }
        }
    }

    private func checkBelongs(_ value: String, setting: Int, account: Int, to holder: String) {
        let name = ScheduleSettings.syncedNames[setting]
        if value.hasPrefix("invalid") {
            violations.append("\(holder): \(name) holds \(value)")
            return
        }
        guard value != "default" else { return }
        if value.hasSuffix("!big") {
            if holder == "the cloud" { violations.append("account \(account): the cloud holds an over-quota \(name)") }
            return
        }
        guard let id = Int(value.dropFirst()), let write = writes[id], write.setting == setting else {
            violations.append("\(holder): \(name) = \(value) was never written")
            return
        }
        if !write.accounts.contains(account) {
            violations.append(
                "account \(account): \(holder) holds \(name) = \(value), written on account \(write.accounts.sorted())")
        }
    }

    /// A saved write with no concurrent write on its account is the final value or known to it.
    /// (A write its device may have abandoned by signing into another account is not required to
    /// survive, but may still have landed: it counts as a possible concurrent write.)
    private func checkNotLost(final: String, setting: Int, account: Int) {
        let onAccount = writes.filter {
            $0.value.setting == setting && $0.value.saved && $0.value.accounts.contains(account)
                && !$0.value.value.hasSuffix("!big")
        }
        let finalWrites = onAccount.filter { $0.value.value == final }
        var known = Set(finalWrites.keys)
        for write in finalWrites.values { known.formUnion(write.knowledge) }
        for (id, write) in onAccount where !known.contains(id) && !write.abandoned && write.accounts == [account] {
            // A later write of its own setting that knew it (refused, or abandoned) replaced it.
            if writes.contains(where: { $0.key != id && $0.value.setting == setting && $0.value.knowledge.contains(id) }
            ) {
                continue
            }
            let concurrent = onAccount.contains { other in
                other.key != id && !write.knowledge.contains(other.key) && !other.value.knowledge.contains(id)
            }
            if !concurrent {
                violations.append(
                    "account \(account): \(ScheduleSettings.syncedNames[setting]) write w\(id) by device "
                        + "\(write.device), which had seen every other write, was lost (devices show \(final))")
            }
        }
    }
}
