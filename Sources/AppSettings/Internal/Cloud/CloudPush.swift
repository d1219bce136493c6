import Foundation

/// What a save sends, decided in the order of the methods below: stamps, account, newer values,
/// Apple's limits.
struct CloudPush {
    var record: CloudRecord?
    var values: [CloudSync.Push] = []
    /// Synced values not sent because the cloud would refuse them (their local save went ahead).
    var failures: [AppSettingsError] = []
    private var sizes: [String: Int] = [:]

    init(record: CloudRecord?) {
        self.record = record
    }

    /// While the object does not sync (after `stopSyncing()`), what is saved belongs to the account
    /// its store is signed into (`account`, the last one seen when signed out): a record of another
    /// account becomes this one's, every synced setting not changed now marked as another account's
    /// (``CloudRecord/foreign``); a record of none takes it.
    mutating func takeAccount(_ account: String, of settings: [SyncedSetting]) {
        guard !CloudSyncMutation.isActive(.stoppedSavesIgnoreAccount) else { return }
        var current = record ?? CloudRecord()
        switch current.account {
        case account?: return
        case nil: current.account = account
        case _? where CloudSyncMutation.isActive(.oldVersionsKept): current.account = account
        case _?: current = CloudRecord(account: account, foreign: Set(settings.map(\.name)))
        }
        record = current
    }

    /// Stamps each synced setting in `changed` past every stamp seen for it: the record's and
    /// the store's (while the object syncs, or after `stopSyncing()`). The change is made over the
    /// store's value, or, with no store, over the value the record last knew (its own, or one
    /// taken from the cloud).
    mutating func stampChanges(_ changed: Set<String>, of settings: [SyncedSetting], sync: CloudSync?) {
        guard settings.contains(where: { changed.contains($0.name) }) else { return }
        var current = record ?? CloudRecord()
        for setting in settings where changed.contains(setting.name) {
            let previous = current.stamps[setting.name]
            let seen = sync?.envelope(forKey: setting.key)??.stamp
            let stamp = CloudStamp.after(
                CloudSyncMutation.isActive(.versionNotRaised) ? [] : [previous, seen], value: setting.stored)
            current.stampChange(of: setting.name, as: stamp, over: sync == nil ? previous : seen)
        }
        record = current
    }

    /// Whether the store may be sent this record's values: signed in, into the record's account
    /// (a record that has met none takes the store's).
    mutating func acceptsAccount(of sync: CloudSync) -> Bool {
        guard var current = record else { return false }
        switch CloudSyncMutation.isActive(.accountIgnored) ? .unknown : sync.store.account {
        case .signedOut: return false
        case .signedIn(let identifier) where current.account == nil: current.account = identifier
        case .signedIn(let identifier) where current.account != identifier: return false
        default: break
        }
        record = current
        return true
    }

    /// The settings whose stamp is newer than the store's, and not refused; a value the cloud
    /// would refuse alone is recorded as refused instead.
    mutating func collectNewerValues(of settings: [SyncedSetting], sync: CloudSync) {
        guard var current = record else { return }
        defer { record = current }
        for setting in settings {
            guard let stamp = current.stamps[setting.name], current.refused[setting.name] != stamp else { continue }
            let found = sync.envelope(forKey: setting.key)
            if let found, CloudSyncMutation.isActive(.neverResend) || (found.map { $0.stamp >= stamp } ?? false) {
                continue
            }
            let propertyList = CloudEnvelope(stamp: stamp, value: setting.stored).propertyListValue
            let byteCount = propertyList.flatMap(CloudLimits.byteCount(of:))
            if let refusal = CloudLimits.refusal(key: setting.key, byteCount: byteCount) {
                current.refuse(setting.name, stamp: stamp)
                failures.append(.cloudValueRefused(key: setting.key, setting: setting.name, reason: refusal))
                continue
            }
            guard let propertyList, let byteCount else { continue }
            sizes[setting.name] = setting.key.utf8.count + byteCount
            values.append(CloudSync.Push(key: setting.key, name: setting.name, value: propertyList))
        }
    }

    /// The set's own keys against Apple's limits for all of the app's keys (the app's other keys
    /// are not known here; the store's quota notice reports what goes over with them): the
    /// smallest values first, each while the total still fits.
    mutating func keepValuesWithinLimits(of settings: [SyncedSetting], sync: CloudSync) {
        guard !values.isEmpty else { return }
        if settings.count > CloudLimits.maximumKeyCount {
            let reason =
                "the set has \(settings.count) synced settings, more than iCloud's \(CloudLimits.maximumKeyCount) keys"
            for push in values { refuse(push, reason: reason) }
            values = []
            return
        }
        var total = 0
        for setting in settings where sizes[setting.name] == nil {
            if let value = sync.object(forKey: setting.key) {
                total += setting.key.utf8.count + (CloudLimits.byteCount(of: value) ?? 0)
            }
        }
        var accepted: [CloudSync.Push] = []
        for push in values.sorted(by: { sizes[$0.name, default: 0] < sizes[$1.name, default: 0] }) {
            let size = sizes[push.name, default: 0]
            if total + size <= CloudLimits.maximumTotalByteCount {
                total += size
                accepted.append(push)
            } else {
                let limit = CloudLimits.maximumTotalByteCount
                refuse(
                    push,
                    reason:
                        "with it the set's synced values would take more than iCloud's \(limit) bytes for all values")
            }
        }
        values = accepted
    }

    private mutating func refuse(_ push: CloudSync.Push, reason: String) {
        let stamp = record?.stamps[push.name]
        record?.refuse(push.name, stamp: stamp)
        failures.append(.cloudValueRefused(key: push.key, setting: push.name, reason: reason))
    }
}
