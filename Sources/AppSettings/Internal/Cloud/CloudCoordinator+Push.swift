import Foundation

// A reconciliation's part of syncing once the values are decided: the changes made here stamped,
// the values to send, and what failed.

extension CloudCoordinator {
    /// Stamps the synced settings `changed` here past every stamp seen for them (after
    /// `stopSyncing()`, for the account the `stopped` link sees),
    /// then, when the object syncs with a store signed into the record's account, the synced
    /// settings whose stamp is newer than the store's, and not refused, are to be sent (those the
    /// cloud would refuse are not, and are recorded as refused).
    func plannedPushes(
        changed: Set<String>,
        sync: CloudSync?,
        stopped: CloudSync?,
        record: inout CloudRecord?,
        settings values: [String: StoredValue]
    ) -> CloudPushPlan {
        let settings = syncedSettings(values: values)
        guard !settings.isEmpty else { return CloudPushPlan() }
        var push = CloudPush(record: record)
        if let account = stopped?.accountOfSaves { push.takeAccount(account, of: settings) }
        push.stampChanges(changed, of: settings, sync: sync ?? stopped)
        if let sync, push.acceptsAccount(of: sync) {
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
