import Foundation

// Syncing across devices (`@Setting(syncs: true)`; <doc:SyncingAcrossDevices>, `Internal/README.md`'s
// `Cloud/`): each synced setting's value carries a `CloudStamp`, and every reconciliation keeps the
// greater stamp, under this object's unsaved changes. No clock is involved: a notice is only a cue
// to compare, so one that names no key, comes twice, early or late changes nothing. Nothing stamped
// for one account is sent to another (`CloudPush.takeAccount`).

extension AppSettingsObject {
    /// Starts syncing the settings declared `@Setting(syncs: true)` with `store`: the user's other
    /// devices get them, and this object takes theirs.
    ///
    /// ```swift
    /// try MySettings.shared.startSyncing(with: NSUbiquitousKeyValueStore.default)
    /// ```
    ///
    /// Each synced setting is one key of the store, `"<userDefaultsKey>.<stored name>"`, holding
    /// its value with a version. What happens, see <doc:SyncingAcrossDevices>:
    /// - ``synchronizeToUserDefaults()`` gives each synced setting it stores with a change a
    ///   version above every version this device has seen for it, and writes it to the store. A
    ///   value the cloud would refuse is not sent; the local save goes ahead, and
    ///   ``AppSettingsChange/syncFailed(_:)`` reports it on ``changes``.
    /// - On every change notice, here, in ``refreshFromCloud()`` and in every save, each synced
    ///   setting not changed here takes the store's value when its version is newer, and sends its own when it is older (a
    ///   write iCloud discarded or lost is sent again). Two devices that changed a setting
    ///   without seeing each other's change end with the same one of the two values
    ///   (``AppSettingsChange/syncConflicts(_:)`` when the two versions tie). Values taken pass
    ///   `validate:` and ``checkAfterDecode()``, are announced as any change, and are stored at
    ///   once; other unsaved changes stay unsaved.
    /// - A setting never changed on this device is never sent: a new device takes the cloud's
    ///   values and overwrites none. Changes saved before syncing starts are sent now.
    /// - The store is checked again by itself: 2 s after this call, a save, a resend or an account
    ///   change, doubling to 5 minutes, then every 5 minutes while the object syncs; at once after
    ///   `NSUbiquityIdentityDidChange` and when the app returns to the foreground. A write the
    ///   initial sync discarded is sent again at the next check, never inside its notice.
    /// - A value the cloud refused is kept here until another device syncs a value for the
    ///   setting; then this device takes it too.
    /// - Nothing is sent while the store is signed out; what is saved meanwhile is sent when the
    ///   same account is back. When the account is another one (noticed now, or by a notice),
    ///   synced settings take that account's values, or their developer defaults, and nothing
    ///   of the old account is sent to it; an unsaved change is saved to the new account. A change
    ///   saved after ``stopSyncing()`` belongs to the account the store was signed into then.
    ///
    /// Calling it again replaces the store; on a nested settings object it syncs the object it is
    /// nested in.
    ///
    /// - Throws: ``AppSettingsError`` when the set cannot be stored (see
    ///   ``synchronizeToUserDefaults()``), or when taking what the cloud sent while the app was not
    ///   running could not be stored; syncing has started in the second case.
    public final func startSyncing(with store: any CloudKeyValueStore) throws {
        if let parent = announcer.parent {
            try parent.startSyncing(with: store)
            return
        }
        try ledger.checkStorable()
        let sync = CloudSync(store: store)
        syncCoordinator.attach(sync)
        sync.start(
            observer: { [weak self, weak sync] change in
                guard let self, let sync else { return }
                self.syncCoordinator.cloudStoreDidChange(change, from: sync)
            },
            event: { [weak self, weak sync] event in
                guard let self, let sync else { return }
                self.syncCoordinator.environmentDidChange(event, for: sync)
            },
            check: { [weak self, weak sync] in
                guard let self, let sync, !self.syncCoordinator.isSettled(with: sync) else { return }
                self.syncCoordinator.pullReportingFailures(nil, from: sync)
            })
        sync.checkAgainLater()
        try syncCoordinator.refresh(sync)
    }

    /// Asks the store for new values and compares every synced setting with it, as a change
    /// notice does. Not needed: a syncing object checks its store again by itself (after
    /// ``startSyncing(with:)``, a save or an account change, then every 5 minutes) and does this
    /// when the app returns to the foreground; call it to ask sooner. Does nothing when the object
    /// does not sync.
    ///
    /// - Throws: ``AppSettingsError`` when what was taken could not be stored.
    public final func refreshFromCloud() throws {
        if let parent = announcer.parent {
            try parent.refreshFromCloud()
            return
        }
        guard let sync = syncCoordinator.attachedSync else { return }
        try syncCoordinator.refresh(sync)
    }

    /// Stops syncing: nothing more is sent or taken, but the object still sees which account the
    /// store is signed into. A synced setting saved from now on belongs to that account (while
    /// signed out, the last one), and the next ``startSyncing(with:)`` sends it when the store is
    /// signed into it; the other synced settings keep the old account's values here until then, and
    /// are given the new account's values or their developer defaults, never sent.
    ///
    /// An object that never synced since it was made does not see the store: what it saves belongs
    /// to the account its set last synced with.
    public final func stopSyncing() {
        if let parent = announcer.parent {
            parent.stopSyncing()
            return
        }
        syncCoordinator.pause()
    }

    var syncCoordinator: CloudCoordinator { CloudCoordinator(object: self) }
}
