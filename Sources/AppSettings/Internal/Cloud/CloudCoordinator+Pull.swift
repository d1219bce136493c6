import Foundation

// A pull: a reconciliation in which the cloud store (`CloudReplica`) brings its newer values.

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

    /// Compares every synced setting with the store (after a notice, `change`, or none): the
    /// store's newer values are stored with what the other replicas changed, sending the newer
    /// values of this device; this object takes them where it has no unsaved change.
    func pull(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) throws {
        try HeldLocks.call("a pull from the cloud") { [self] in
            try ledger.reconcile(
                .storedState,
                replicas: object.ledger.replicas(replacing: CloudReplica(object: object, sync: sync, notice: change)))
        }
    }

    /// The synced settings of this object with what `storedValues` holds for each (its developer
    /// default where it holds none), in cloud form, and their developer defaults.
    func syncedSettings(storedValues: [String: StoredValue]) -> [SyncedSetting] {
        let defaults = object.ledger.makeScratchCopy(copyingValues: false)
        defaults.resetToDeveloperDefaults()
        return slots.filter { $0.syncs && !$0.isConstant }.map { slot in
            let developerDefault = defaults.syncCoordinator.storedValue(of: defaults.slots[slot.index])
            return SyncedSetting(
                name: slot.name, key: cloudKey(of: slot),
                stored: (storedValues[slot.name] ?? developerDefault)?.cloudValue,
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
