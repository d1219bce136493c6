import Foundation

// The save path: snapshot → what is stored now and each replica's changes (`+Reconciling`) →
// keyed archive → size check → store → mark saved → tell other objects of the store.

extension AppSettingsObject {
    /// Writes the whole settings set to `UserDefaults` as one keyed archive and flushes it to
    /// disk, so that another process, or the next launch, reads it.
    ///
    /// A clean object (nothing changed since the last load or synchronization) returns at once:
    /// no archiving, no I/O.
    ///
    /// Other writers of the same set (another object, your app's extension, another process) lose
    /// nothing: under the lock that serializes writers, what is stored now is re-read and merged. A
    /// setting this object changed since its last load or synchronization is written with this
    /// object's value; every other setting, and every setting this class does not declare, keeps the
    /// stored value. A setting changed on both sides goes to the later synchronization and is
    /// reported as ``AppSettingsChange/mergeConflicts(_:)``. The settings taken from the store are
    /// announced as for ``resetToUserDefaults()``.
    ///
    /// What is stored but cannot be read (nor merged) is first kept under
    /// `"<userDefaultsKey>.unreadable-<milliseconds>"`, then replaced by this object's set.
    ///
    /// Calling it on a nested settings object synchronizes the object it is nested in. Called inside
    /// the library's own write (from an observer of `UserDefaults.didChangeNotification` registered
    /// with `queue: nil` on Apple platforms), it runs once that write released its locks, before the
    /// call that wrote returns; so do ``resetToUserDefaults()`` and ``removeFromUserDefaults()``.
    ///
    /// - Throws: ``AppSettingsError`` when the key postfix is empty, a value cannot be encoded, the
    ///   set exceeds the platform's limit (see <doc:StorageAndDataSafety>), the stored set cannot be
    ///   read now (``AppSettingsError/storeUnavailable(key:reason:)``), or the store cannot be written
    ///   (``AppSettingsError/storeFailed(key:reason:)``). Nothing is written in the first four cases;
    ///   in every case the object keeps its unsaved changes, so the next synchronization tries again.
    public final func synchronizeToUserDefaults() throws {
        try HeldLocks.call("synchronizeToUserDefaults()") { [self] in
            try ledger.reconcile(.unsavedChanges, replicas: ledger.replicas())
        }
    }

    /// Deletes the stored set and resets every setting to its developer default.
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` when the store cannot be written.
    public final func removeFromUserDefaults() throws {
        if let parent = announcer.parent {
            try parent.removeFromUserDefaults()
            return
        }
        try HeldLocks.call("removeFromUserDefaults()") { [self] in try ledger.removeStoredSet() }
    }
}

extension SettingsLedger {
    /// Removes the stored set and the replicas' entries; developer defaults in memory.
    func removeStoredSet() throws {
        try checkStorable()
        // Found before the removal, by what they share with this object's store now.
        let others: [AppSettingsObject]
        if let stored = store.storedData() {
            others = StoreRegistry.objects(sharingStoreWith: object, holding: stored)
        } else {
            others = []
        }
        let replicas = replicas()
        try store.remove(alsoRemoving: replicas.flatMap(\.entryKeys))
        replaceValues(as: .storedState) { $0.resetToDeveloperDefaults() }
        for other in others { other.ledger.storedSettingsDidChange() }
        for replica in replicas { replica.setWasRemoved() }
    }

    /// The values and the stored base of this moment (nested objects' too), taken under the lock.
    func takeSnapshot() -> Snapshot {
        var snapshot = _state.withLock { state in
            Snapshot(
                changes: state.ledger.changes,
                values: slots.map { $0.nestedObject != nil ? nil : $0.anyValue },
                nested: [:],
                stored: state.ledger.stored
            )
        }
        for slot in slots {
            if let nested = slot.nestedObject?.ledger.takeSnapshot() { snapshot.nested[slot.index] = nested }
        }
        return snapshot
    }

    /// Records that `snapshot` is stored: no unsaved changes up to it (the new stored base is
    /// taken by `takeWritten`).
    func markSaved(_ snapshot: Snapshot) {
        _state.withLock { $0.ledger.markSaved(upTo: snapshot.changes.generation) }
        for slot in slots {
            if let nested = snapshot.nested[slot.index] { slot.nestedObject?.ledger.markSaved(nested) }
        }
    }
}
