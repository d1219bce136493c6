@_spi(AppSettingsTool) import AppSettingsStoredSets
import AppSettingsTesting
import Foundation

@testable import AppSettings

/// The settings the replica schedules run: shown in the Settings app, synced, both, and neither.
final class ReplicaScheduleSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Shown", inSettingsApp: true) var shown = "default"
    @Setting(syncs: true) var synced = "default"
    @Setting(syncs: true, description: "Both", inSettingsApp: true) var both = "default"
    @Setting var plain = "default"
    override var userDefaultsKeyPostfix: String { "ReplicaSchedule" }

    subscript(setting: ReplicaSetting) -> String {
        get {
            switch setting {
            case .shown: shown
            case .synced: synced
            case .both: both
            case .plain: plain
            }
        }
        set {
            switch setting {
            case .shown: shown = newValue
            case .synced: synced = newValue
            case .both: both = newValue
            case .plain: plain = newValue
            }
        }
    }
}

/// One run of a replica schedule against the library, step by step beside ``ReplicaModel``,
/// comparing every replica after each step. The actors: two or three objects of one suite
/// (object 0 on the suite's `UserDefaults` and syncing, the others on other `UserDefaults` of the
/// suite, as other processes would be), short-lived objects standing for other processes, the
/// Settings app (plain writes of the shown keys), the `appsettings` tool's edits, and another
/// device syncing through the same simulated iCloud account.
///
/// What the documentation leaves open, and how the schedules fix it:
/// - Change notices come only when a step delivers them (`noticeDelivery: .manual`), and
///   simulated time stands still until the end, so the library's own checks of the store run
///   only then.
/// - Two versions of one counter are ordered by a hash of their values: a step that would make
///   two such versions meet is not run (``ReplicaModel/Tie``), and the schedule says so.
/// - The other device changes a setting only after it saw every change (this device's uploads
///   included), and its change reaches this device's local copy at once: no two devices change
///   one setting unseen, whose outcome the documentation leaves to the versions.
/// - On real suites the store watcher calls a look at the shown keys after every save, at a
///   moment nobody sets: every live object looks right after the Settings app writes, so that
///   the watcher's looks find nothing new.
/// - A pull that changes nothing the model follows may write all the same (the record of the
///   account): whether it wrote is observed, and the syncing object then holds the written set.
final class ReplicaScheduleRun {
    let schedule: ReplicaSchedule
    let suite = TemporarySuite.forSettings()
    let otherSuite = TemporarySuite.forSettings()
    let cloud = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .manual))
    let device: CloudKeyValueStoreSimulator.Device
    let otherDevice: CloudKeyValueStoreSimulator.Device
    var objects: [ReplicaScheduleSettings] = []
    var other: ReplicaScheduleSettings
    var model = ReplicaModel()
    /// Whether every live object looks right after the Settings app writes (real suites).
    let looksAfterSettingsApp: Bool
    var violations: [String] = []
    /// The steps not run, with why.
    private(set) var skipped: [Int: String] = [:]
    let key = "AppSettings.ReplicaSchedule"

    init(_ schedule: ReplicaSchedule) {
        self.schedule = schedule
        device = cloud.makeDevice()
        otherDevice = cloud.makeDevice()
        other = ReplicaScheduleSettings(userDefaults: otherSuite.userDefaults)
        looksAfterSettingsApp = !suite.isInMemory
    }

    func shownKey(_ setting: ReplicaSetting) -> String { "ReplicaSchedule.\(setting)" }
    func cloudKey(_ setting: ReplicaSetting) -> String { "\(key).\(setting)" }

    func run() {
        setUp()
        check("the start")
        for (index, step) in schedule.steps.enumerated() {
            let before = observe().set
            var probe = model
            do {
                _ = try probe.apply(step, wrote: true, looksAfterSettingsApp: looksAfterSettingsApp)
            } catch {
                skipped[index] = "\(error)"
                continue
            }
            let failed = perform(step)
            let after = observe().set
            let wrote = after != before
            let expectation: ReplicaModel.Expectation
            do {
                expectation = try model.apply(step, wrote: wrote, looksAfterSettingsApp: looksAfterSettingsApp)
            } catch {
                violations.append("[model] step \(index + 1): \(error) after the probe found none")
                return
            }
            let label = "step \(index + 1) (\(step))"
            checkExpectation(expectation, wrote: wrote, failed: failed, at: label)
            check("after " + label)
            if violations.count > 4 { return }
        }
        settle()
    }

    private func setUp() {
        // Each device's first download (of nothing) comes first: no write is discarded.
        cloud.download(to: device)
        cloud.download(to: otherDevice)
        objects.append(ReplicaScheduleSettings(userDefaults: suite.userDefaults))
        model.objects.append(ReplicaModel.loaded(from: nil, keys: [:], syncs: true))
        let before = observe().set
        attempt("object 0: startSyncing") { try objects[0].startSyncing(with: device) }
        model.take(try! model.reconcile(0, save: false), by: 0, save: false, wrote: observe().set != before)
        for _ in 1..<schedule.objectCount {
            objects.append(ReplicaScheduleSettings(userDefaults: suite.another()))
            model.objects.append(ReplicaModel.loaded(from: model.set, keys: model.keys, syncs: false))
        }
        attempt("the other device: startSyncing") { try other.startSyncing(with: otherDevice) }
    }

    /// Runs `body`, recording an error as a violation; returns whether it threw.
    @discardableResult
    private func attempt(_ label: String, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch {
            violations.append("[error] \(label): \(error)")
            return true
        }
    }

    /// Runs `step` on the library; returns whether the tool refused it.
    private func perform(_ step: ReplicaStep) -> Bool {
        let label = "\(step)"
        switch step {
        case .assign(let object, let setting, let id):
            objects[object][setting] = "w\(id)"
        case .save(let object):
            attempt(label) { try objects[object].synchronizeToUserDefaults() }
        case .revert(let object):
            attempt(label) { try objects[object].resetToUserDefaults() }
        case .relaunch(let object):
            objects[object].stopSyncing()
            objects[object] = ReplicaScheduleSettings(userDefaults: suite.another())
            if object == 0 { attempt(label) { try objects[0].startSyncing(with: device) } }
        case .look(let object):
            objects[object].settingsApp.takeWrittenValues(refresh: true)
        case .otherProcess(let setting, let id):
            #if os(Linux) || os(macOS)
                // On real suites, a real process (the test host's `replica-save`).
                if !suite.isInMemory {
                    attempt(label) {
                        let host = try TestHost.run(["replica-save", suite.name, "-", "\(setting)", "p\(id)"])
                        if host.status != 0 { throw AppSettingsError.storeFailed(key: key, reason: host.errors) }
                    }
                    return false
                }
            #endif
            let process = ReplicaScheduleSettings(userDefaults: suite.another())
            process[setting] = "p\(id)"
            attempt(label) { try process.synchronizeToUserDefaults() }
        case .settingsApp(let setting, let id):
            let settingsApp = suite.another()
            settingsApp.set("s\(id)", forKey: shownKey(setting))
            if !suite.isInMemory { settingsApp.synchronize() }
            if looksAfterSettingsApp {
                for object in objects { object.settingsApp.takeWrittenValues(refresh: true) }
            }
        case .toolSet(let setting, let id):
            do {
                try StoredSettingsEditor.setValue(
                    "t\(id)", forSetting: "\(setting)", userDefaults: suite.another(), key: key)
            } catch {
                return true
            }
        case .toolRemove:
            do {
                _ = try StoredSettingsEditor.removeSet(userDefaults: suite.another(), key: key)
            } catch {
                return true
            }
        case .otherDevice(let setting, let id):
            cloud.upload(from: device)
            cloud.download(to: otherDevice)
            attempt(label) {
                try other.refreshFromCloud()
                other[setting] = "d\(id)"
                try other.synchronizeToUserDefaults()
            }
            cloud.upload(from: otherDevice)
            cloud.download(to: device)
        case .deliver:
            cloud.deliverNotices(to: device)
        case .refresh:
            attempt(label) { try objects[0].refreshFromCloud() }
        }
        return false
    }

    private func checkExpectation(_ expectation: ReplicaModel.Expectation, wrote: Bool, failed: Bool, at label: String)
    {
        switch expectation {
        case .noWrite where wrote:
            violations.append("[write] \(label): the set was written, the rule writes nothing")
        case .write where !wrote:
            violations.append("[write] \(label): the set was not written")
        case .pull(mustWrite: true) where !wrote:
            violations.append("[write] \(label): the pull wrote nothing, the rule changes the set, a key or the cloud")
        case .refused:
            if !failed { violations.append("[error] \(label): the tool did not refuse, with nothing stored") }
        case .write, .noWrite, .pull:
            if failed { violations.append("[error] \(label): the tool refused") }
        }
    }

    /// The stored set's bytes and the shown keys, read as the library reads them.
    func observe() -> (set: Data?, objects: [String: Any]) {
        let store = SettingsStore(userDefaults: suite.another(), key: key)
        do {
            return try store.look(atKeys: ReplicaSetting.shownSettings.map(shownKey), refresh: true)
        } catch {
            violations.append("[error] reading the suite: \(error)")
            return (nil, [:])
        }
    }

    /// Everything delivered: the syncing object pulls, iCloud moves everything and simulated time
    /// passes (the library's own checks run), and the other device pulls; then the cloud, the
    /// set and the other device agree on every synced setting.
    private func settle() {
        model.noticePending = false
        for label in ["object 0: refreshFromCloud() at the end", "everything delivered"] {
            let before = observe().set
            if label.hasPrefix("object 0") {
                attempt(label) { try objects[0].refreshFromCloud() }
            } else {
                cloud.deliverChanges()
            }
            let wrote = observe().set != before
            do {
                let expectation = try model.pull(wrote: wrote)
                checkExpectation(expectation, wrote: wrote, failed: false, at: label)
            } catch {
                violations.append("[model] \(label): \(error)")
            }
            check("after " + label)
        }
        attempt("the other device: refreshFromCloud()") { try other.refreshFromCloud() }
        checkConvergence()
    }
}
