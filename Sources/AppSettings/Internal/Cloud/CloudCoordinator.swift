import Foundation

/// The sync coordinator of one object (`@Setting(syncs: true)`; rules in `+Syncing`): what it
/// asks of its store, its pulls (`+Pull`) and its saves' record and pushes (`+Push`). Its link is
/// `ObjectState.cloud` (``CloudLink``), its record `StoredBase.cloudRecord`.
struct CloudCoordinator: ObjectPart {
    let object: AppSettingsObject

    /// The object is going away: its link to the store stops.
    func stopAtRelease() {
        detach()
    }

    /// The link to the store the object syncs through, while it does.
    var attachedSync: CloudSync? {
        link.sync
    }

    /// The object's links to the store: the one it syncs through, or the one `stopSyncing()` stopped.
    var link: CloudLink {
        _state.withLock { $0.cloud }
    }

    /// The object syncs through `sync` from now on; the link it synced through before ends.
    func attach(_ sync: CloudSync) {
        detach()
        _state.withLock { $0.cloud.attach(sync) }
    }

    /// The object no longer syncs: the link it synced through stops, still seeing the account.
    func pause() {
        let sync = _state.withLock { $0.cloud.pause() }
        sync?.stop(keepingAccount: true)
    }

    /// The object's links to the store end.
    private func detach() {
        let links = _state.withLock { $0.cloud.stop() }
        for link in links { link?.stop() }
    }

    /// Whether a check would find nothing to do: the store is signed out, or signed into the
    /// stored record's account and holds, for every synced setting, what the record says.
    func isSettled(with sync: CloudSync) -> Bool {
        guard let record = ledger.storedBase.cloudRecord else { return false }
        switch sync.store.account {
        case .signedOut: return true
        case .signedIn(let identifier) where record.account != identifier: return false
        default: break
        }
        return slots.allSatisfy { slot in
            !slot.syncs || slot.isConstant
                || record.isSettled(slot.name, holding: sync.envelope(forKey: cloudKey(of: slot)))
        }
    }

    /// After the account changed, a pull takes the new account's values (or sends what was saved
    /// while signed out, back on the same account), and the checks start again; back in the
    /// foreground, the store is asked for new values, as ``refreshFromCloud()`` does.
    func environmentDidChange(_ event: CloudEnvironmentEvent, for sync: CloudSync) {
        switch event {
        case .identityChanged:
            sync.checkAgainLater()
            pullReportingFailures(nil, from: sync)
        case .enteredForeground:
            do {
                try refresh(sync)
            } catch {
                reportSyncFailures([
                    error as? AppSettingsError ?? .storeFailed(key: userDefaultsKey, reason: "\(error)")
                ])
            }
        }
    }

    /// Apple: call `synchronize()` "only at launch or when your app returns to the foreground".
    func refresh(_ sync: CloudSync) throws {
        if !sync.store.synchronize() {
            Log.notice("\(userDefaultsKey): the cloud key-value store could not synchronize its local copy")
        }
        try pull(nil, from: sync)
    }

    /// The cloud key of a synced setting.
    func cloudKey(of slot: AnySettingSlot) -> String {
        cloudKey(ofSettingNamed: slot.name)
    }

    func cloudKey(ofSettingNamed name: String) -> String {
        object.binding.key.cloudKey(ofSettingNamed: name)
    }
}
