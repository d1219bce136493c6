import Foundation

// A pull: the store's newer synced values come into the set (see `+Syncing` for the rules).

extension AppSettingsObject {
    /// Called by the store's change observer, on the store's thread.
    func cloudStoreDidChange(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) {
        do {
            try pull(change, from: sync)
        } catch {
            let error = error as? AppSettingsError ?? .storeFailed(key: userDefaultsKey, reason: "\(error)")
            reportSyncFailures([error])
        }
    }

    /// What a pull did, reported after the locks are released.
    private struct PullOutcome {
        var adopted: [(object: AppSettingsObject, indices: [Int])] = []
        var conflicts: [String] = []
        var failures: [AppSettingsError] = []
    }

    /// Compares every synced setting with the store (after a notice, `change`, or none): into a
    /// scratch copy of what is stored, the newer values of the store are taken; the scratch copy
    /// is stored (sending the newer values of this device), then this object takes its values
    /// where it has no unsaved change.
    func pull(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) throws {
        let outcome: PullOutcome? = try _synchronization.withLock { _ in
            // A notice that arrives after `stopSyncing()` (or for a replaced store) is ignored.
            guard _state.withLock({ $0.cloud.sync === sync }) else { return nil }
            let account = sync.store.account
            // Signed out: nothing travels (Apple: "If you write to the key-value store object when
            // the user is not signed into an iCloud account, the data is stored locally until the
            // next synchronization opportunity").
            guard account != .signedOut else { return nil }
            var outcome = PullOutcome()
            let scratch = makeScratchCopy(copyingValues: false)
            scratch.resetToDeveloperDefaults()
            if let error = scratch.loadStoredState(refresh: true) {
                Log.error("\(type(of: self)): taking values from the cloud: \(error)")
            }
            let (storedRecord, storedSchemaVersion) = scratch._state.withLock {
                ($0.stored.cloudRecord, $0.stored.schemaVersion)
            }
            var record = storedRecord ?? CloudRecord()
            let synced = scratch.slots.filter { $0.syncs && !$0.isConstant }
            let defaults = makeScratchCopy(copyingValues: false)
            defaults.resetToDeveloperDefaults()
            var taken: [String: StoredValue] = [:]

            // Another account: nothing of the old one is kept or sent (Apple,
            // NSUbiquitousKeyValueStoreAccountChange: "the system removes any previous iCloud data
            // and replaces it with data from the new account").
            var switched = false
            switch CloudSyncMutation.current == .accountIgnored ? nil : account {
            case .signedIn(let identifier) where record.account == nil:
                record.account = identifier
            case .signedIn(let identifier) where record.account != identifier:
                switched = true
                record = CloudRecord(account: identifier)
            case .unknown where change?.reason == .accountChange:
                switched = true
                record = CloudRecord(account: record.account)
            default:
                break
            }
            if switched {
                for slot in synced { taken[slot.name] = defaults.storedValue(of: defaults.slots[slot.index]) ?? .null }
            }

            // A refused value is not sent again until it changes. Apple's notice "can include"
            // the keys: without them, every value the store does not hold counts as refused.
            if change?.reason == .quotaViolationChange {
                let keys = Set(change?.changedKeys ?? [])
                for slot in synced {
                    let key = cloudKey(of: slot)
                    guard let stamp = record.stamps[slot.name], keys.isEmpty || keys.contains(key),
                        sync.envelope(forKey: key)??.stamp != stamp
                    else { continue }
                    record.refused[slot.name] = stamp
                    outcome.failures.append(
                        .cloudValueRefused(
                            key: key, setting: slot.name,
                            reason: "iCloud refused it: the app's key-value storage is over its quota"))
                }
            }

            // A setting this version no longer syncs (removed, or made local): its cloud key is
            // removed, once, by a version at least as new as the one that stored the set.
            let syncedNames = Set(synced.map(\.name))
            let classVersion = type(of: self).schemaVersion
            for name in record.stamps.keys.sorted() where !syncedNames.contains(name) {
                record.stamps[name] = nil
                record.refused[name] = nil
                if (storedSchemaVersion ?? 0) <= classVersion {
                    sync.store.removeObject(forKey: cloudKey(ofSettingNamed: name))
                }
            }

            // A value stored without a version (a setting that became synced, a value migrated
            // from a legacy key, a set of the first format) and not the developer default is this
            // device's own: version 0, below every change made with syncing.
            if !switched {
                for slot in synced where record.stamps[slot.name] == nil {
                    let value = scratch.storedValue(of: slot)?.cloudValue
                    guard value != defaults.storedValue(of: defaults.slots[slot.index])?.cloudValue else { continue }
                    record.stamps[slot.name] = CloudStamp(counter: 0, tag: value.tag)
                }
            }

            // The newer stamp wins.
            var toSend = false
            for slot in synced {
                let key = cloudKey(of: slot)
                let mine = record.stamps[slot.name]
                guard let found = sync.envelope(forKey: key) else {
                    toSend = toSend || (mine != nil && record.refused[slot.name] != mine)
                    continue
                }
                guard let theirs = found else {
                    outcome.failures.append(
                        .cloudValueUnreadable(key: key, setting: slot.name, reason: "it is not a property list"))
                    continue
                }
                if let mine, theirs.stamp <= mine,
                    CloudSyncMutation.current != .takesOlderValues || theirs.stamp == mine
                {
                    toSend = toSend || (theirs.stamp < mine && record.refused[slot.name] != mine)
                    continue
                }
                if let mine, mine.counter == theirs.stamp.counter { outcome.conflicts.append(slot.name) }
                record.stamps[slot.name] = theirs.stamp
                record.refused[slot.name] = nil
                taken[slot.name] = theirs.value?.fromCloudForm ?? .null
            }
            if !taken.isEmpty {
                _ = scratch.fill(fromStored: taken) { problem in
                    outcome.failures.append(
                        .cloudValueUnreadable(
                            key: cloudKey(ofSettingNamed: problem.setting), setting: problem.setting,
                            reason: problem.reason))
                }
            }
            // Nothing taken, nothing to send, nothing new to record: nothing to store.
            guard !taken.isEmpty || toSend || record != storedRecord else { return outcome }
            scratch._state.withLock { state in
                state.stored.cloudRecord = record
                state.cloud.sync = sync
                state.cloud.changesCameFromCloud = true
            }
            let synchronization = try scratch.synchronize(forcing: true, onBehalfOf: self)
            outcome.failures += synchronization?.decision.cloudFailures ?? []
            // What the scratch copy wrote is this object's new base: its unsaved changes are
            // written over it by its next synchronization, without a merge.
            let written = scratch._state.withLock { $0.stored }
            _state.withLock { $0.stored = written }
            // Only settings without unsaved changes take the stored values.
            var snapshot = takeSnapshot()
            snapshot.changes.generation = snapshot.changes.savedGeneration
            takeStoredValues(of: scratch, over: snapshot, into: &outcome.adopted)
            return outcome
        }
        guard let outcome else { return }
        for (object, indices) in outcome.adopted { object.announce(indices, propagatesToParent: false) }
        if !outcome.conflicts.isEmpty {
            Log.notice(
                "\(userDefaultsKey): \(outcome.conflicts.joined(separator: ", ")) changed here and on another device "
                    + "from the same version; the value of the greater version was taken")
            let continuations = _state.withLock { $0.announcements.listeners }
            for continuation in continuations { continuation.yield(.syncConflicts(outcome.conflicts)) }
        }
        reportSyncFailures(outcome.failures)
    }

    /// The stored value of `slot`, one of this object's (an unpublished copy's) slots.
    private func storedValue(of slot: AnySettingSlot) -> StoredValue? {
        _state.withLock { _ in try? slot.storedValue(of: slot.anyValue) }
    }
}
