import Foundation

// The save path, in the order it runs: snapshot (under the object's lock) → stored values →
// keyed archive → size check → store (Internal/Store) → mark saved → tell other objects of the store.

extension AppSettingsObject {
    /// Writes the whole settings set to `UserDefaults` as one keyed archive and flushes it to
    /// disk, so that another process, or the next launch, reads it.
    ///
    /// A clean object (nothing changed since the last load or synchronization) returns at once:
    /// no archiving, no I/O.
    ///
    /// Other writers of the same set (another object, your app's extension, another process)
    /// lose nothing: under the lock that serializes writers, what is stored now is re-read and
    /// merged. A setting this object changed since its last load or synchronization is written
    /// with this object's value; every other setting takes the stored value, and settings this
    /// class does not declare are kept from the stored set. A setting changed on both sides goes
    /// to the later synchronization and is reported as ``AppSettingsChange/mergeConflicts(_:)``.
    /// Afterwards this object holds the merged set, without unsaved changes; the settings it took
    /// from the store are announced as for ``resetToUserDefaults()``, after `validate:` and
    /// ``checkAfterDecode()`` ran on them. When nobody else wrote since, nothing is merged.
    ///
    /// What is stored but cannot be read (nor merged) is first kept under
    /// `"<userDefaultsKey>.unreadable-<milliseconds>"`, then replaced by this object's set.
    ///
    /// Calling it on a nested settings object synchronizes the object it is nested in.
    ///
    /// - Throws: ``AppSettingsError`` when the key postfix is empty, a value cannot be encoded or
    ///   the set exceeds the platform's limit (its domain, every key counted, may hold 4 MiB less
    ///   64 KiB; 1 MiB less 64 KiB on tvOS and watchOS; nothing is written then), when the stored
    ///   set cannot be read now (``AppSettingsError/storeUnavailable(key:reason:)``: protected
    ///   data before the first unlock, or on Linux a file of the set that cannot be opened;
    ///   nothing is written), or when the store cannot be written
    ///   (``AppSettingsError/storeFailed(key:reason:)``: `UserDefaults` may hold the new set
    ///   already, but without its recovery copy on Linux). In every case the object keeps its
    ///   unsaved changes, so the next synchronization tries again.
    public final func synchronizeToUserDefaults() throws {
        try ledger.synchronize(forcing: false)
    }

    /// Deletes the stored set and resets every setting to its developer default.
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` when the store cannot be written.
    public final func removeFromUserDefaults() throws {
        if let parent = announcer.parent {
            try parent.removeFromUserDefaults()
            return
        }
        try ledger.checkStorable()
        // Found before the removal, by what they share with this object's store now.
        let others: [AppSettingsObject]
        if let stored = binding.store.storedData() {
            others = StoreRegistry.objects(sharingStoreWith: self, holding: stored)
        } else {
            others = []
        }
        try binding.store.remove(alsoRemoving: settingsApp.shownSlots.map(\.key))
        ledger.replaceValues(as: .storedState) { $0.resetToDeveloperDefaults() }
        for other in others { other.ledger.storedSettingsDidChange() }
        // Synced settings are the account's: a syncing object takes them back from the cloud.
        syncCoordinator.pullAfterRemoval()
    }
}

extension SettingsLedger {
    /// The save path; `forcing` writes a clean object too (a pull storing what the cloud sent,
    /// through a scratch copy, on behalf of `owner`, which is not told of the write). Returns what
    /// was done, for a caller reporting on another object's behalf.
    @discardableResult
    func synchronize(forcing: Bool, onBehalfOf owner: AppSettingsObject? = nil) throws -> FinishedSave? {
        if let parent = announcer.parent {
            return try parent.ledger.synchronize(forcing: forcing, onBehalfOf: owner)
        }
        guard hasUnsavedChanges || forcing else { return nil }
        try checkStorable()
        // What the Settings app wrote since the last look is taken first: it counts as made now.
        if !forcing { settingsApp.takeWrittenValues(refresh: true) }
        // Synced values go to the account the store is signed into now (AppSettingsObject+Syncing).
        if !forcing { try object.syncCoordinator.pullIfAccountChanged() }
        // One synchronization of an object at a time, so the last snapshot taken is the last written.
        let synchronization: FinishedSave? = try object._synchronization.withLock { _ in
            // The synced settings' part of the moment is taken with it, under the same lock.
            let (snapshot, taken) = takeSnapshot { state in
                (
                    record: state.stored.syncRecord, link: CloudCoordinator.link(in: state),
                    changed: syncedSettingsChanged(in: state)
                )
            }
            // The record is decoded outside the object's lock, and only when the set has one.
            let cloud = CloudSnapshot(
                record: CloudRecord.decoded(taken.record), sync: taken.link.sync, stopped: taken.link.stopped,
                changed: taken.link.changesCameFromCloud ? [] : taken.changed)
            // Changed since the check above? Another thread may have synchronized meanwhile.
            guard forcing || snapshot.changes.hasUnsavedChanges else { return nil }
            // Under the domain's lock: what is stored now, merged with this object's changes.
            let (backupKey, decision) = try store.write { stored in
                try settingsApp.showingValues(merged(snapshot, cloud: cloud, with: stored))
            }
            markSaved(snapshot)
            settingsApp.didSave()
            return FinishedSave(
                decision: decision, backupKey: backupKey, adopted: takeWritten(decision, over: snapshot))
        }
        guard let synchronization else { return nil }
        if let backupKey = synchronization.backupKey {
            Log.notice("\(userDefaultsKey): the value that could not be read was kept under '\(backupKey)'")
        }
        report(synchronization)
        StoreRegistry.storeDidChange(object, stored: synchronization.decision.data, except: owner)
        return synchronization
    }

    /// The values and the stored base of this moment (nested objects' too), taken under the lock.
    func takeSnapshot() -> Snapshot {
        takeSnapshot { _ in () }.snapshot
    }

    /// ``takeSnapshot()`` with what `extra` takes of this object's state in the same moment.
    private func takeSnapshot<Extra>(alsoTaking extra: (ObjectState) -> Extra) -> (snapshot: Snapshot, extra: Extra) {
        var (snapshot, taken) = _state.withLock { state in
            (
                Snapshot(
                    changes: state.changes,
                    values: slots.map { $0.nestedObject != nil ? nil : $0.anyValue },
                    nested: [:],
                    stored: state.stored
                ),
                extra(state)
            )
        }
        for slot in slots {
            if let nested = slot.nestedObject?.ledger.takeSnapshot() { snapshot.nested[slot.index] = nested }
        }
        return (snapshot, taken)
    }

    /// The synced settings changed since the last load or save.
    private func syncedSettingsChanged(in state: ObjectState) -> Set<String> {
        var changed: Set<String> = []
        for slot in slots
        where slot.syncs && !slot.isConstant && state.changes.changedSinceSave(slot.index) {
            changed.insert(slot.name)
        }
        return changed
    }

    /// Records that `snapshot` is stored: no unsaved changes up to it (the new stored base is
    /// taken by `takeWritten`).
    private func markSaved(_ snapshot: Snapshot) {
        _state.withLock { state in
            state.changes.savedGeneration = max(state.changes.savedGeneration, snapshot.changes.generation)
        }
        for slot in slots {
            if let nested = snapshot.nested[slot.index] { slot.nestedObject?.ledger.markSaved(nested) }
        }
    }
}
