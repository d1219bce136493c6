import Foundation

// The save's part of syncing: the record a save writes, the values it sends, and what failed.

extension CloudCoordinator {
    /// The cloud record a synchronization writes: the stored set's when it merges with another
    /// writer's (it is the newer one; this snapshot's changes are stamped past it), else its own.
    func cloudRecordToWrite(_ cloud: CloudSnapshot, storedRecord: CloudRecord??) -> CloudRecord? {
        if case .some(.some(let stored)) = storedRecord { return stored }
        return cloud.record
    }

    /// In a save: stamps the synced settings changed in `cloud` past every stamp seen for them,
    /// then, when the object syncs with a store signed into the record's account, the synced
    /// settings whose stamp is newer than the store's, and not refused, are to be sent (those the
    /// cloud would refuse are not, and are recorded as refused).
    func plannedPushes(
        _ cloud: CloudSnapshot,
        record: inout CloudRecord?,
        settings values: [String: StoredValue]
    ) -> CloudPushPlan {
        let settings = syncedSettings(values: values)
        guard !settings.isEmpty else { return CloudPushPlan() }
        var push = CloudPush(record: record)
        if let account = cloud.stopped?.accountOfSaves { push.takeAccount(account, of: settings) }
        push.stampChanges(cloud.changed, of: settings, sync: cloud.sync ?? cloud.stopped)
        if let sync = cloud.sync, push.acceptsAccount(of: sync) {
            push.collectNewerValues(of: settings, sync: sync)
            push.keepValuesWithinLimits(of: settings, sync: sync)
        }
        record = push.record
        return CloudPushPlan(values: push.values, failures: push.failures)
    }

    /// Reports synced values that could not be sent or taken on ``changes``.
    func reportSyncFailures(_ failures: [AppSettingsError]) {
        guard !failures.isEmpty else { return }
        for failure in failures { Log.notice("\(userDefaultsKey): \(failure)") }
        let continuations = announcer.listeners
        for continuation in continuations {
            for failure in failures { continuation.yield(.syncFailed(failure)) }
        }
    }
}
