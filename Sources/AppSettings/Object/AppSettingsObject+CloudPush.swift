import Foundation

// The save's part of syncing: the record a save writes, the values it sends, and what failed.

extension AppSettingsObject {
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
        settings: [String: StoredValue]
    ) -> CloudPushPlan {
        var plan = CloudPushPlan()
        let synced = slots.filter { $0.syncs && !$0.isConstant }
        guard !synced.isEmpty else { return plan }
        if synced.contains(where: { cloud.changed.contains($0.name) }) {
            var current = record ?? CloudRecord()
            for slot in synced where cloud.changed.contains(slot.name) {
                let seen = cloud.sync?.envelope(forKey: cloudKey(of: slot))??.stamp
                current.stamps[slot.name] = CloudStamp.after(
                    CloudSyncMutation.current == .versionNotRaised ? [] : [current.stamps[slot.name], seen],
                    value: settings[slot.name]?.cloudValue)
                current.refused[slot.name] = nil
            }
            record = current
        }
        guard let sync = cloud.sync, var current = record else { return plan }
        switch CloudSyncMutation.current == .accountIgnored ? .unknown : sync.store.account {
        case .signedOut: return plan
        case .signedIn(let identifier) where current.account == nil: current.account = identifier
        case .signedIn(let identifier) where current.account != identifier: return plan
        default: break
        }
        var sizes: [String: Int] = [:]
        for slot in synced {
            guard let stamp = current.stamps[slot.name], current.refused[slot.name] != stamp else { continue }
            let key = cloudKey(of: slot)
            if let found = sync.envelope(forKey: key),
                CloudSyncMutation.current == .neverResend || (found.map { $0.stamp >= stamp } ?? false)
            {
                continue
            }
            let envelope = CloudEnvelope(stamp: stamp, value: settings[slot.name]?.cloudValue)
            let propertyList = envelope.propertyListValue
            let byteCount = propertyList.flatMap(CloudLimits.byteCount(of:))
            if let refusal = CloudLimits.refusal(key: key, byteCount: byteCount) {
                current.refused[slot.name] = stamp
                plan.failures.append(.cloudValueRefused(key: key, setting: slot.name, reason: refusal))
                continue
            }
            guard let propertyList, let byteCount else { continue }
            sizes[slot.name] = key.utf8.count + byteCount
            plan.values.append(CloudSync.Push(key: key, name: slot.name, value: propertyList))
        }
        // The set's own keys against Apple's limits for all of the app's keys (the app's other
        // keys are not known here; the store's quota notice reports what goes over with them):
        // the smallest values first, each while the total still fits.
        if !plan.values.isEmpty {
            if synced.count > CloudLimits.maximumKeyCount {
                for push in plan.values {
                    refuse(
                        push,
                        reason:
                            "the set has \(synced.count) synced settings, more than iCloud's \(CloudLimits.maximumKeyCount) keys"
                    )
                }
                plan.values = []
            } else {
                var total = 0
                for slot in synced where sizes[slot.name] == nil {
                    let key = cloudKey(of: slot)
                    if let value = sync.store.object(forKey: key) {
                        total += key.utf8.count + (CloudLimits.byteCount(of: value) ?? 0)
                    }
                }
                var accepted: [CloudSync.Push] = []
                for push in plan.values.sorted(by: { sizes[$0.name, default: 0] < sizes[$1.name, default: 0] }) {
                    let size = sizes[push.name, default: 0]
                    if total + size <= CloudLimits.maximumTotalByteCount {
                        total += size
                        accepted.append(push)
                    } else {
                        refuse(
                            push,
                            reason:
                                "with it the set's synced values would take more than iCloud's \(CloudLimits.maximumTotalByteCount) bytes for all values"
                        )
                    }
                }
                plan.values = accepted
            }
        }
        func refuse(_ push: CloudSync.Push, reason: String) {
            current.refused[push.name] = current.stamps[push.name]
            plan.failures.append(.cloudValueRefused(key: push.key, setting: push.name, reason: reason))
        }
        record = current
        return plan
    }

    /// Reports synced values that could not be sent or taken on ``changes``.
    func reportSyncFailures(_ failures: [AppSettingsError]) {
        guard !failures.isEmpty else { return }
        for failure in failures { Log.notice("\(userDefaultsKey): \(failure)") }
        let continuations = _state.withLock { $0.announcements.listeners }
        for continuation in continuations {
            for failure in failures { continuation.yield(.syncFailed(failure)) }
        }
    }
}
