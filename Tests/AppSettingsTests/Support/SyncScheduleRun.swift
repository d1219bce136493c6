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
        /// The account it was saved on, by the documented rules (`nil` until it is saved): the
        /// account its device is signed into; signed out, the one its set belongs to (an object
        /// stopped by `stopSyncing()`: the last one its store was signed into); by an object that
        /// never synced, the one its set belongs to. A set that belongs to none (never synced, or
        /// removed) gives it to the next account it meets (`nil` until then).
        var origin: Int?
        /// The account it was carried to: it was unsaved when its device signed into that
        /// account, so it is to be saved to that account (`[carried]`).
        var carriedTo: Int?
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
        /// The account it was last signed into: the account of its store's local copy.
        var lastAccount: Int?
        /// The account its set belongs to (`nil`: none since the set was made or removed).
        var setAccount: Int?
        /// Whether its object has a link to its store: it syncs, or stopped syncing (and still
        /// sees the store's account); an object that never synced has none.
        var linked = false
        /// The last account its link saw the store signed into.
        var linkAccount: Int?
        /// Settings whose versions its set forgot (removed) and has not stamped or synced since: an
        /// object with no link changes them as a new device would, having seen nothing.
        var forgotten: Set<Int> = []
        var knowledgeAccount: Int?
        var knowledge: [Int: Set<Int>] = [:]
        var unsaved: [Int: Int] = [:]
        /// Saved writes whose account is the next one its set syncs with.
        var unbound: [Int] = []
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
            device: -1, setting: 0, value: "w\(preexisting)", origin: 1, knowledge: [], saved: true)
    }

    func run() -> [String] {
        for index in 0..<schedule.deviceCount {
            let device = Device(index: index, store: cloud.makeDevice())
            devices.append(device)
            startSyncing(device)
            bind(device, to: 0)
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
        writes[id] = Write(
            device: device.index, setting: setting, value: value, knowledge: device.knowledge[setting] ?? [])
        device.knowledge[setting, default: []].insert(id)
        device.unsaved[setting] = id
    }

    private func saved(_ device: Device, wrote: Bool) {
        // A set written meets the account its store is signed into (stopped: the last one it
        // saw), and what it saved unbound goes there.
        let signedIn = account(of: device) ?? (device.syncing ? nil : device.linkAccount)
        if wrote, device.linked, let signedIn { bind(device, to: signedIn) }
        for (setting, id) in device.unsaved {
            writes[id]?.saved = true
            if !device.linked && device.forgotten.remove(setting) != nil { writes[id]?.knowledge = [] }
            writes[id]?.origin = device.setAccount
            if device.setAccount == nil { device.unbound.append(id) }
        }
        device.unsaved = [:]
    }

    /// `device` starts syncing: its link sees the account its store is signed into.
    func startSyncing(_ device: Device) {
        perform { try device.settings.startSyncing(with: device.counting) }
        device.syncing = true
        device.linked = true
        device.linkAccount = account(of: device)
        device.forgotten = []
    }

    /// The set of `device` meets `account`: what it saved before it met any account belongs to
    /// it. Another account than the set's is a switch: the old account's writes not yet uploaded
    /// never will be, and the changes not yet saved to an account are carried to the new one.
    func bind(_ device: Device, to account: Int) {
        if let old = device.setAccount, old != account {
            for (id, write) in writes where write.device == device.index && write.origin == old {
                writes[id]?.abandoned = true
            }
            for id in device.unbound + device.unsaved.values { writes[id]?.carriedTo = account }
        }
        device.setAccount = account
        for id in device.unbound { writes[id]?.origin = account }
        device.unbound = []
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
            // The set and its record go: what it saves next belongs to the next account it meets
            // (at once, syncing signed in: the removal takes the cloud's values back).
            device.setAccount = nil
            device.forgotten = Set(0..<5)
            // The device's copy goes, its changes not yet uploaded with it (those already in its
            // store's local copy may still travel).
            for (id, write) in writes where write.device == index { writes[id]?.abandoned = true }
            device.unbound = []
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
            device.linked = false
            if device.syncing { startSyncing(device) }
        case .stop(let index):
            devices[index].settings.stopSyncing()
            devices[index].syncing = false
        case .start(let index):
            startSyncing(devices[index])
        case .online(let index, let online):
            cloud.setOnline(online, for: devices[index].store)
        case .signOut(let index):
            cloud.signOut(devices[index].store)
        case .signIn(let index, let account):
            let device = devices[index]
            if device.lastAccount != account {
                // Its saved writes not yet on their account never will be: they are the old
                // account's. Its unsaved changes are carried: they are saved to the new account.
                for (id, write) in writes where write.device == index && write.origin != nil {
                    writes[id]?.abandoned = true
                }
                for (_, id) in device.unsaved { writes[id]?.carriedTo = account }
            }
            cloud.signIn(device.store, to: accounts[account])
            device.lastAccount = account
            if device.linked { device.linkAccount = account }
        case .wait(let seconds):
            cloud.advanceTime(by: Double(seconds))
        case .foreground(let index):
            cloud.enterForeground(devices[index].store)
        case .deliverAll:
            cloud.deliverChanges()
        }
    }

    func save(_ device: Device) {
        let writes = device.settings.hasUnsavedChanges
        perform { try device.settings.synchronizeToUserDefaults() }
        saved(device, wrote: writes)
    }
}
