import AppSettingsTesting
import Foundation

@testable import AppSettings

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
                    violations.append(
                        "[documented] step '\(step)': device \(device.index) wrote \(made) values to its store")
                }
            }
            sample()
            if violations.count > 5 { break }
        }
        settle()
        check()
        return violations
    }

    func perform(_ body: () throws -> Void) {
        do { try body() } catch { violations.append("[documented] unexpected error: \(error)") }
    }

    func account(of device: Device) -> Int? {
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
        case .wait(let seconds):
            cloud.advanceTime(by: Double(seconds))
        case .foreground(let index):
            cloud.enterForeground(devices[index].store)
        case .deliverAll:
            cloud.deliverChanges()
        }
    }

    /// Starting again on another account than the one it stopped on: what it saved meanwhile
    /// belongs to the old account and is not sent to the new one.
    func abandonIfAccountChanged(_ device: Device) {
        guard !device.syncing, let current = account(of: device), current != device.stoppedAccount else { return }
        for id in device.writtenWhileStopped { writes[id]?.abandoned = true }
    }

    func save(_ device: Device) {
        perform { try device.settings.synchronizeToUserDefaults() }
        saved(device)
    }
}
