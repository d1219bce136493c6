import Foundation

// A pull: the store's newer synced values come into the set (see `+Syncing` for the rules).

extension CloudCoordinator {
    /// Called by the store's change observer, on the store's thread. A notice of the initial sync
    /// is not answered inside it: Apple, `NSUbiquitousKeyValueStoreInitialSyncChange`: "Schedule
    /// the write operations after a delay to give the system time to download the data". The
    /// pull that sends the discarded writes again runs at the next check (``CloudRecheckSchedule``).
    func cloudStoreDidChange(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) {
        if change?.reason == .initialSyncChange && !CloudSyncMutation.isActive(.writesInInitialSyncNotice) {
            sync.checkAgainLater()
            return
        }
        pullReportingFailures(change, from: sync)
    }

    /// A pull whose failure is reported on ``changes``.
    func pullReportingFailures(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) {
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
        let outcome: PullOutcome? = try object._synchronization.withLock { _ -> PullOutcome? in
            // A notice that arrives after `stopSyncing()` (or for a replaced store) is ignored.
            guard _state.withLock({ $0.cloud.sync === sync }) else { return nil }
            let account = sync.store.account
            // Signed out: nothing travels (Apple: "If you write to the key-value store object when
            // the user is not signed into an iCloud account, the data is stored locally until the
            // next synchronization opportunity").
            guard account != .signedOut else { return nil }
            let scratch = object.ledger.makeScratchCopy(copyingValues: false)
            scratch.resetToDeveloperDefaults()
            if let error = scratch.ledger.loadStoredState(refresh: true) {
                Log.error("\(type(of: object)): taking values from the cloud: \(error)")
            }
            let storedBase = scratch.ledger.storedBase
            let (storedRecord, storedSchemaVersion) = (storedBase.cloudRecord, storedBase.schemaVersion)
            let settings = scratch.syncCoordinator.syncedSettings()
            var pull = CloudPull(record: storedRecord ?? CloudRecord())
            pull.takeAccount(account, notice: change, settings: settings)
            pull.recordRefusals(in: change, settings: settings, sync: sync)
            let removals = pull.forgetSettingsNoLongerSynced(
                settings, removesKeys: (storedSchemaVersion ?? 0) <= type(of: object).schemaVersion,
                cloudKey: cloudKey(ofSettingNamed:))
            for key in removals { sync.remove(key) }
            pull.stampValuesWithoutVersion(settings)
            pull.compare(settings, with: sync)
            var outcome = PullOutcome(conflicts: pull.conflicts, failures: pull.failures)
            if !pull.taken.isEmpty {
                _ = scratch.ledger.fill(fromStored: pull.taken) { problem in
                    outcome.failures.append(
                        .cloudValueUnreadable(
                            key: cloudKey(ofSettingNamed: problem.setting), setting: problem.setting,
                            reason: problem.reason))
                }
            }
            // Another account's first download may come later, and silently: check again.
            if pull.switchedAccount { sync.checkAgainLater() }
            // Nothing taken, nothing to send, nothing new to record: nothing to store.
            guard !pull.taken.isEmpty || pull.needsSending || pull.record != storedRecord else { return outcome }
            // The scratch copy is this thread's alone: its record and its link need no one moment.
            scratch.ledger.recordCloudRecord(pull.record)
            scratch._state.withLock { state in
                state.cloud.sync = sync
                state.cloud.changesCameFromCloud = true
            }
            let synchronization = try scratch.ledger.synchronize(forcing: true, onBehalfOf: object)
            outcome.failures += synchronization?.decision.cloudFailures ?? []
            // What the scratch copy wrote is this object's new base: its unsaved changes are
            // written over it by its next synchronization, without a merge.
            object.ledger.replaceStoredBase(with: scratch.ledger.storedBase)
            // Only settings without unsaved changes take the stored values.
            var snapshot = object.ledger.takeSnapshot()
            snapshot.changes.generation = snapshot.changes.savedGeneration
            object.ledger.takeStoredValues(of: scratch, over: snapshot, into: &outcome.adopted)
            return outcome
        }
        guard let outcome else { return }
        for (object, indices) in outcome.adopted { object.announcer.announce(indices, propagatesToParent: false) }
        if !outcome.conflicts.isEmpty {
            Log.notice(
                "\(userDefaultsKey): \(outcome.conflicts.joined(separator: ", ")) changed here and on another device "
                    + "from the same version; the value of the greater version was taken")
            let continuations = announcer.listeners
            for continuation in continuations { continuation.yield(.syncConflicts(outcome.conflicts)) }
        }
        reportSyncFailures(outcome.failures)
    }

    /// The synced settings of this object (an unpublished copy), with what it holds: each value
    /// in cloud form and its developer default.
    func syncedSettings() -> [SyncedSetting] {
        let defaults = object.ledger.makeScratchCopy(copyingValues: false)
        defaults.resetToDeveloperDefaults()
        return slots.filter { $0.syncs && !$0.isConstant }.map { slot in
            let developerDefault = defaults.syncCoordinator.storedValue(of: defaults.slots[slot.index])
            return SyncedSetting(
                name: slot.name, key: cloudKey(of: slot), stored: storedValue(of: slot)?.cloudValue,
                developerDefault: developerDefault?.cloudValue, developerDefaultStored: developerDefault ?? .null)
        }
    }

    /// The synced settings of a save's `values` (their developer defaults are not needed there).
    func syncedSettings(values: [String: StoredValue]) -> [SyncedSetting] {
        slots.filter { $0.syncs && !$0.isConstant }.map { slot in
            SyncedSetting(
                name: slot.name, key: cloudKey(of: slot), stored: values[slot.name]?.cloudValue,
                developerDefault: nil, developerDefaultStored: .null)
        }
    }

    /// The stored value of `slot`, one of this object's (an unpublished copy's) slots.
    private func storedValue(of slot: AnySettingSlot) -> StoredValue? {
        _state.withLock { _ in try? slot.storedValue(of: slot.anyValue) }
    }
}
