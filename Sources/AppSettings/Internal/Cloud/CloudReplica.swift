import Foundation

/// The cloud key-value store an object syncs with, as a replica of its synced settings
/// (``SettingsReplica``; the rules are in `Object/AppSettingsObject+Syncing.swift`). Under the
/// domain's lock it compares each synced setting with the store against the stored set's record of
/// versions (``CloudPull``: the account, the refusals a notice reports, the settings no longer
/// synced, the values without a version, then the newer version of each), and proposes the store's
/// newer values; once the values are decided, the changes made here are stamped and the newer
/// values sent (``CloudPush``), and the record is written with the set.
final class CloudReplica: SettingsReplica {
    private let object: AppSettingsObject
    /// The store, while the object syncs: without one the changes made here are still stamped,
    /// to be sent when syncing starts again.
    private let sync: CloudSync?
    /// After `stopSyncing()`, the stopped link: what is saved belongs to the account it sees.
    private var stopped: CloudSync?
    /// The change notice that asked for this reconciliation, if any.
    private let notice: CloudKeyValueStoreChange?
    /// Whether this link is still the object's: a notice that came after `stopSyncing()` (or for
    /// a replaced store) takes, sends and records nothing.
    private var isCurrent = false
    /// The record of versions: the stored set's, then as the read left it.
    private var record: CloudRecord?
    /// What the read found, when the store is signed in.
    private var pull: CloudPull?
    private var removals: [String] = []
    private var plan = CloudPushPlan()

    init(object: AppSettingsObject, sync: CloudSync?, notice: CloudKeyValueStoreChange? = nil) {
        self.object = object
        self.sync = sync
        self.notice = notice
    }

    var recordField: String { ArchiveFormat.cloudBaseField }
    var entryKeys: [String] { [] }
    var needsWriting: Bool { false }
    func prepare(_ writing: Reconciliation.Writing) {}
    func loaded() {}

    func read(_ reconciliation: inout Reconciliation, from domain: SettingsStore.LockedRead) {
        let coordinator = object.syncCoordinator
        let link = coordinator.link
        guard link.sync === sync else { return }
        (isCurrent, stopped) = (true, link.stopped)
        record =
            reconciliation.storedValues == nil && reconciliation.writing == .unsavedChanges
            ? reconciliation.snapshot.stored.cloudRecord : CloudRecord.decoded(from: reconciliation.storedRecords)
        // Signed out: nothing travels (Apple: "If you write to the key-value store object when the
        // user is not signed into an iCloud account, the data is stored locally until the next
        // synchronization opportunity").
        guard let sync, case let account = sync.store.account, account != .signedOut else { return }
        var pull = CloudPull(record: record ?? CloudRecord())
        defer { (self.pull, record) = (pull, pull.record) }
        let settings = coordinator.syncedSettings(storedValues: reconciliation.storedValues ?? [:])
        pull.takeAccount(account, notice: notice, settings: settings)
        pull.recordRefusals(in: notice, settings: settings, sync: sync)
        removals = pull.forgetSettingsNoLongerSynced(
            settings, removesKeys: (reconciliation.storedSchemaVersion ?? 0) <= type(of: object).schemaVersion,
            cloudKey: coordinator.cloudKey(ofSettingNamed:))
        pull.stampValuesWithoutVersion(settings)
        pull.compare(settings, with: sync)
        for (name, value) in pull.taken {
            reconciliation.propose(
                Reconciliation.Proposal(value: value, order: .outranksStoredSet, madeHere: false, replica: recordField),
                for: name)
        }
    }

    func write(_ decided: Reconciliation.Decided, into write: inout Reconciliation.ReplicaWrite) {
        guard isCurrent else { return }
        var record = self.record
        let changed = decided.changedHere.filter { name in object.slots.contains { $0.name == name && $0.syncs } }
        plan = object.syncCoordinator.plannedPushes(
            changed: changed, sync: sync, stopped: stopped, record: &record, settings: decided.settings)
        record.record(in: &write.records)
        let (removals, pushes) = (removals, plan.values)
        // A change not sent now (signed out, another account) is sent at a later check.
        if let sync, !removals.isEmpty || !pushes.isEmpty || !changed.isEmpty {
            write.beforeWriting.append {
                for key in removals { sync.remove(key) }
                if !pushes.isEmpty || !changed.isEmpty { sync.send(pushes) }
            }
        }
        if pull?.needsSending == true { write.needsWrite = true }
    }

    func finish(_ finished: Reconciliation.Finished) {
        guard isCurrent else { return }
        let coordinator = object.syncCoordinator
        let pull = pull ?? CloudPull(record: CloudRecord())
        // Another account's first download may come later, and silently: check again.
        if pull.switchedAccount { sync?.checkAgainLater() }
        if !pull.conflicts.isEmpty {
            Log.notice(
                "\(object.userDefaultsKey): \(pull.conflicts.joined(separator: ", ")) changed here and on another "
                    + "device from the same version; the value of the greater version was taken")
            for continuation in object.announcer.listeners { continuation.yield(.syncConflicts(pull.conflicts)) }
        }
        var failures = pull.failures + plan.failures
        for (name, problem) in finished.refused where pull.taken[name] != nil {
            failures.append(
                .cloudValueUnreadable(
                    key: coordinator.cloudKey(ofSettingNamed: name), setting: name, reason: problem.reason))
        }
        coordinator.reportSyncFailures(failures)
    }

    func setWasRemoved() {
        // Synced settings are the account's: a syncing object takes them back from the cloud.
        if let sync { object.syncCoordinator.cloudStoreDidChange(nil, from: sync) }
    }
}
