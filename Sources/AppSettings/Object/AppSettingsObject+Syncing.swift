import Foundation

// Syncing across devices (`@Setting(syncs: true)`), through a cloud key-value store:
// - one cloud key per synced setting, "<userDefaultsKey>.<stored name>", holding an envelope:
//   the value (as a property list) and its version, a `CloudStamp` (`Internal/Cloud/CloudRecord`);
// - the record (`CloudRecord`, stored in the archive): per synced setting the stamp of the value
//   stored here, the stamps iCloud refused, and the account they belong to;
// - a save stamps each synced setting it changed past every stamp seen for it (the record's and
//   the store's), then sends (in the save path, `written` in `AppSettingsObject+Merging.swift`)
//   every synced setting whose stamp is newer than the one the store's local copy holds;
// - a pull (any change notice, `startSyncing`, `refreshFromCloud`, or a save that finds another
//   account) compares each synced setting's stamp with the store's: the newer stamp's value wins.
//   A cloud value with a newer stamp is taken; a local one is sent (a write iCloud discarded, or
//   an older upload that iCloud let win by its own timestamps, is recognized and sent again).
//
// No clock is involved, and notices are only a cue to compare: a notice that names no key, comes
// twice, early, late or from inside `synchronize()` changes nothing, and the values converge on
// every device to the greatest stamp. Nothing is sent while the store is signed out, and nothing
// stamped for one account is sent to another.

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
    /// - On every change notice, here, and in ``refreshFromCloud()``, each synced setting takes
    ///   the store's value when its version is newer, and sends its own when it is older (a
    ///   write iCloud discarded or lost is sent again). Two devices that changed a setting
    ///   without seeing each other's change end with the same one of the two values
    ///   (``AppSettingsChange/syncConflicts(_:)`` when the two versions tie). Values taken pass
    ///   `validate:` and ``checkAfterDecode()``, are announced as any change, and are stored at
    ///   once; other unsaved changes stay unsaved.
    /// - A setting never changed on this device is never sent: a new device takes the cloud's
    ///   values and overwrites none. Changes saved before syncing starts are sent now.
    /// - Nothing is sent while the store is signed out; what is saved meanwhile is sent when the
    ///   same account is back. When the account is another one (noticed now, or by a notice),
    ///   synced settings take that account's values, or their developer defaults, and nothing
    ///   of the old account is sent to it; an unsaved change is saved to the new account.
    ///
    /// Calling it again replaces the store; on a nested settings object it syncs the object it is
    /// nested in.
    ///
    /// - Throws: ``AppSettingsError`` when the set cannot be stored (see
    ///   ``synchronizeToUserDefaults()``), or when taking what the cloud sent while the app was not
    ///   running could not be stored; syncing has started in the second case.
    public final func startSyncing(with store: any CloudKeyValueStore) throws {
        if let parent = embeddingParent {
            try parent.startSyncing(with: store)
            return
        }
        try checkStorable()
        stopSyncing()
        let sync = CloudSync(store: store)
        _state.withLock { $0.cloud.sync = sync }
        sync.start { [weak self, weak sync] change in
            guard let self, let sync else { return }
            self.cloudStoreDidChange(change, from: sync)
        }
        try refresh(sync)
    }

    /// Asks the store for new values and compares every synced setting with it, as a change
    /// notice does. Call it when your app returns to the foreground: Apple's store downloads a
    /// device's first values without a notice (it posts one only when a write was discarded), so
    /// a device that changed nothing yet sees them here, at the next launch, or at the next
    /// notice. Does nothing when the object does not sync.
    ///
    /// - Throws: ``AppSettingsError`` when what was taken could not be stored.
    public final func refreshFromCloud() throws {
        if let parent = embeddingParent {
            try parent.refreshFromCloud()
            return
        }
        guard let sync = _state.withLock({ $0.cloud.sync }) else { return }
        try refresh(sync)
    }

    /// Apple: call `synchronize()` "only at launch or when your app returns to the foreground".
    private func refresh(_ sync: CloudSync) throws {
        if !sync.store.synchronize() {
            Log.notice("\(userDefaultsKey): the cloud key-value store could not synchronize its local copy")
        }
        try pull(nil, from: sync)
    }

    /// Stops syncing: nothing more is sent or taken. Synced settings changed from now on are sent
    /// after the next ``startSyncing(with:)`` when the store is then signed into the same account
    /// as now (a store signed into another account now first takes that account's values).
    public final func stopSyncing() {
        if let parent = embeddingParent {
            parent.stopSyncing()
            return
        }
        // The values stored from now on belong to the account the store is signed into now.
        do {
            try pullIfAccountChanged()
        } catch {
            reportSyncFailures([error as? AppSettingsError ?? .storeFailed(key: userDefaultsKey, reason: "\(error)")])
        }
        let sync = _state.withLock { state in
            defer { state.cloud.sync = nil }
            return state.cloud.sync
        }
        sync?.stop()
    }

    /// The cloud key of a synced setting.
    final func cloudKey(of slot: AnySettingSlot) -> String {
        cloudKey(ofSettingNamed: slot.name)
    }

    final func cloudKey(ofSettingNamed name: String) -> String {
        settingsKey.cloudKey(ofSettingNamed: name)
    }

    /// Before a save: when the store is signed into another account than the one the stored
    /// values belong to, a pull first takes the new account's values (the unsaved changes stay,
    /// and are then saved to the new account).
    func pullIfAccountChanged() throws {
        let (sync, recorded) = _state.withLock { ($0.cloud.sync, $0.stored.cloudRecord?.account) }
        guard let sync, let recorded, case .signedIn(let account) = sync.store.account, account != recorded else {
            return
        }
        try pull(nil, from: sync)
    }

    /// After `removeFromUserDefaults()`: a syncing object takes the cloud's values at once.
    func pullAfterRemoval() {
        guard let sync = _state.withLock({ $0.cloud.sync }) else { return }
        cloudStoreDidChange(nil, from: sync)
    }

    /// Called by the store's change observer, on the store's thread.
    private func cloudStoreDidChange(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) {
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
    private func pull(_ change: CloudKeyValueStoreChange?, from sync: CloudSync) throws {
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
            var taken: [String: _StoredValue] = [:]

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
                _ = scratch.apply(taken) { problem in
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
            adoptStoredValues(of: scratch, over: snapshot, into: &outcome.adopted)
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
    private func storedValue(of slot: AnySettingSlot) -> _StoredValue? {
        _state.withLock { _ in try? slot.storedValue(of: slot.anyValue) }
    }

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
        settings: [String: _StoredValue]
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
