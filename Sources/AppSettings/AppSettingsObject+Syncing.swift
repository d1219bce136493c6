import Foundation

// Syncing across devices (`@Setting(syncs: true)`), through a cloud key-value store:
// - one cloud key per synced setting, "<userDefaultsKey>.<stored name>", holding its value as a
//   property list;
// - the cloud base (`CloudRecord`, stored in the archive): per synced setting the value the cloud
//   and this set last agreed on, and the synced settings stored with a change not yet sent;
// - push, in the save path (`written` in `AppSettingsObject+Merging.swift`): every pending setting
//   whose value differs from its cloud base is sent; before the initial sync, every pending value
//   is written but stays pending (see `plannedPushes`);
// - pull, on a change notice: a three-way merge per synced setting of the cloud's value, the cloud
//   base and the stored value, stored through a scratch copy (so the object's other unsaved
//   changes stay unsaved), then taken by the object where it has no unsaved change.
//
// The rule when a setting changed both here and in the cloud since they last agreed: the cloud's
// value wins. Every device applies it alike and the cloud holds one value per key, so all devices
// end with that value, whatever their clocks say. A change not yet stored when the cloud's value
// arrives is not a conflict: it was made after this device saw the cloud's value, and it is sent
// when it is stored.

extension AppSettingsObject {
    /// Starts syncing the settings declared `@Setting(syncs: true)` with `store`: the user's other
    /// devices get them, and this object takes theirs.
    ///
    /// ```swift
    /// try MySettings.shared.startSyncing(with: NSUbiquitousKeyValueStore.default)
    /// ```
    ///
    /// Each synced setting is one key of the store, `"<userDefaultsKey>.<stored name>"`, holding
    /// its value as a property list. What happens, see <doc:SyncingAcrossDevices>:
    /// - ``synchronizeToUserDefaults()`` sends the synced settings stored with a change since the
    ///   cloud last agreed with this set. A value the cloud would refuse is not sent; the local
    ///   save goes ahead, and ``AppSettingsChange/syncFailed(_:)`` reports it on ``changes``.
    /// - A change notice from the store merges each synced setting with what the cloud and this
    ///   set last agreed on: a setting changed only in the cloud takes the cloud's value, one
    ///   changed only here keeps its value and is sent, one changed on both sides takes the
    ///   cloud's value (reported as ``AppSettingsChange/syncConflicts(_:)``), so every device
    ///   ends with the same value. Values taken pass `validate:` and ``checkAfterDecode()``, are
    ///   announced as any change, and are stored at once; other unsaved changes stay unsaved.
    /// - A setting never changed on this device is never sent: a new device takes the cloud's
    ///   values and overwrites none. Until the store's first change notice (the initial sync)
    ///   nothing counts as agreed: changes stay pending (iCloud discards what is written before
    ///   its first download), and after the notice's merge what is still pending is sent.
    /// - After an account change the new account's values are taken and nothing of the old
    ///   account is sent to it.
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
        _state.withLock { $0.cloudSync = sync }
        sync.start { [weak self, weak sync] change in
            guard let self, let sync else { return }
            self.cloudStoreDidChange(change, from: sync)
        }
        if !store.synchronize() {
            Log.notice("\(userDefaultsKey): the cloud key-value store could not synchronize its local copy")
        }
        // Synced before, or the store's local copy holds values of this set (it has downloaded
        // them, and may post no notice of it): what arrived while the app was not syncing is
        // taken, what was stored meanwhile is sent.
        let syncedBefore = _state.withLock { $0.stored.cloudRecord?.base != nil }
        if syncedBefore || slots.contains(where: { $0.syncs && store.object(forKey: cloudKey(of: $0)) != nil }) {
            try pull(CloudKeyValueStoreChange(reason: .serverChange, changedKeys: []), from: sync)
        }
    }

    /// Stops syncing: nothing more is sent or taken. Synced settings changed from now on are sent
    /// after the next ``startSyncing(with:)``.
    public final func stopSyncing() {
        if let parent = embeddingParent {
            parent.stopSyncing()
            return
        }
        let sync = _state.withLock { state in
            defer { state.cloudSync = nil }
            return state.cloudSync
        }
        sync?.stop()
    }

    /// The cloud key of a synced setting.
    final func cloudKey(of slot: AnySettingSlot) -> String {
        "\(userDefaultsKey).\(slot.name)"
    }

    /// Called by the store's change observer, on the store's thread.
    private func cloudStoreDidChange(_ change: CloudKeyValueStoreChange, from sync: CloudSync) {
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
        var sentTo: CloudSync?
    }

    /// Takes a change notice: merges the cloud's values into a scratch copy of what is stored,
    /// stores it (sending what is pending), then takes its values where this object has no unsaved
    /// change.
    private func pull(_ change: CloudKeyValueStoreChange, from sync: CloudSync) throws {
        let outcome: PullOutcome? = try _synchronization.withLock { _ in
            // A notice that arrives after `stopSyncing()` (or for a replaced store) is ignored.
            guard var record = _state.withLock({ $0.cloudSync === sync ? $0.stored.cloudRecord ?? CloudRecord() : nil })
            else { return nil }
            var outcome = PullOutcome()
            var refused: Set<String> = []
            switch change.reason {
            case .quotaViolationChange:
                for (key, sent) in sync.takeRefused(keys: change.changedKeys) {
                    // The cloud kept its value: the base is what it was, and the value stays here,
                    // not sent again until it changes.
                    record.base?[sent.name] = sent.previousBase
                    refused.insert(sent.name)
                    outcome.failures.append(
                        .cloudValueRefused(
                            key: key, setting: sent.name,
                            reason: "iCloud refused it: the app's key-value storage is over its quota"))
                }
                guard !outcome.failures.isEmpty else { return outcome }
            case .accountChange:
                // Nothing agreed with the old account holds for the new one, and nothing of it is sent.
                sync.forgetSentValues()
                record = CloudRecord(base: [:], pending: [])
            case .initialSyncChange, .serverChange:
                // Any notice shows that the store has talked to the cloud: the initial sync arrived.
                if record.base == nil { record.base = [:] }
            }
            let scratch = makeScratchCopy(copyingValues: false)
            scratch.resetToDeveloperDefaults()
            if let error = scratch.loadStoredState(refresh: true) {
                Log.error("\(type(of: self)): taking values from the cloud: \(error)")
            }
            // Another writer of the set (an extension) may have stored changes to send.
            let storedRecord = scratch._state.withLock { $0.stored.cloudRecord }
            if change.reason != .accountChange, let storedPending = storedRecord?.pending {
                record.pending.formUnion(storedPending)
            }
            record.pending.subtract(refused)
            var tookValues = false
            if change.reason != .quotaViolationChange {
                tookValues = mergeCloudValues(from: sync.store, into: scratch, record: &record, outcome: &outcome)
            }
            // Nothing taken, nothing to send, nothing new to record: nothing to store.
            guard tookValues || !record.pending.isEmpty || record != storedRecord else {
                _state.withLock { $0.stored.cloudRecord = record }
                return outcome
            }
            scratch._state.withLock { state in
                state.stored.cloudRecord = record
                state.cloudSync = sync
                state.changesCameFromCloud = true
            }
            let synchronization = try scratch.synchronize(forcing: true, onBehalfOf: self)
            outcome.failures += synchronization?.decision.cloudFailures ?? []
            outcome.sentTo = synchronization?.decision.sentTo
            // What the scratch copy wrote is this object's new base: its unsaved changes are
            // written over it by its next synchronization, without a merge.
            let written = scratch._state.withLock { $0.stored }
            _state.withLock { $0.stored = written }
            // Only settings without unsaved changes take the stored values.
            var snapshot = takeSnapshot()
            snapshot.generation = snapshot.savedGeneration
            adoptStoredValues(of: scratch, over: snapshot, into: &outcome.adopted)
            return outcome
        }
        guard let outcome else { return }
        outcome.sentTo?.flush()
        for (object, indices) in outcome.adopted { object.announce(indices, propagatesToParent: false) }
        if !outcome.conflicts.isEmpty {
            Log.notice(
                "\(userDefaultsKey): \(outcome.conflicts.joined(separator: ", ")) changed here and in iCloud; "
                    + "iCloud's values were taken")
            let continuations = _state.withLock { Array($0.continuations.values) }
            for continuation in continuations { continuation.yield(.syncConflicts(outcome.conflicts)) }
        }
        reportSyncFailures(outcome.failures)
    }

    /// The three-way merge of each synced setting: the cloud's value, the cloud base in `record`
    /// and the value stored (`scratch`, loaded from the store). Values to take are applied to
    /// `scratch` as a load applies them; `record` gets the new bases. Returns whether any value
    /// was taken.
    private func mergeCloudValues(
        from store: any CloudKeyValueStore,
        into scratch: AppSettingsObject,
        record: inout CloudRecord,
        outcome: inout PullOutcome
    ) -> Bool {
        var taken: [String: _StoredValue] = [:]
        for slot in scratch.slots where slot.syncs && !slot.isConstant {
            let key = cloudKey(of: slot)
            var theirs: _StoredValue?
            if let value = store.object(forKey: key) {
                guard let stored = _StoredValue(propertyListValue: value) else {
                    outcome.failures.append(
                        .cloudValueUnreadable(
                            key: key, setting: slot.name,
                            reason: "it is \(foundTypeName(of: value)), not a property list"))
                    continue
                }
                theirs = stored.cloudValue
            }
            guard theirs != record.base?[slot.name] else { continue }  // the cloud did not change it
            record.base?[slot.name] = theirs
            let mine = scratch._state.withLock { _ in try? slot.storedValue(of: slot.anyValue) }?.cloudValue
            let wasPending = record.pending.remove(slot.name) != nil
            guard mine != theirs else { continue }
            if wasPending { outcome.conflicts.append(slot.name) }
            if let theirs {
                taken[slot.name] = theirs
            } else if (try? slot.decode(.null)) != nil {
                // Removed in the cloud: the value is `nil` where the setting can hold it (a probe:
                // a setting that cannot keeps its value).
                taken[slot.name] = .null
            }
        }
        guard !taken.isEmpty else { return false }
        _ = scratch.apply(taken) { problem in
            outcome.failures.append(
                .cloudValueUnreadable(
                    key: "\(userDefaultsKey).\(problem.setting)", setting: problem.setting, reason: problem.reason))
        }
        return true
    }

    /// The cloud record a synchronization writes: the syncing object's own (it decides the
    /// bases), or, for another writer merging with a stored set, the stored one; pending settings
    /// from both, plus the synced settings changed in this snapshot.
    func cloudRecordToWrite(_ cloud: CloudSnapshot, storedRecord: CloudRecord??) -> CloudRecord? {
        var record = cloud.record
        if case .some(let stored) = storedRecord {
            if cloud.sync == nil { record = stored }
            if let stored, record != nil { record?.pending.formUnion(stored.pending) }
        }
        if !cloud.changed.isEmpty {
            var changed = record ?? CloudRecord()
            changed.pending.formUnion(cloud.changed)
            record = changed
        }
        return record
    }

    /// When this object syncs: the pending synced settings to send and the ones the cloud would
    /// refuse. Once the initial sync arrived, a setting is sent when its value differs from its
    /// cloud base, which becomes that value, and it is no longer pending. Before it, every pending
    /// value is written and stays pending, its base unknown: iCloud discards writes made before
    /// its first download and then posts the initial-sync notice, whose merge decides (and Apple
    /// posts that notice only after a discarded write, so a device whose store had synced already
    /// would otherwise never send anything).
    func plannedPushes(
        _ cloud: CloudSnapshot,
        record: inout CloudRecord?,
        settings: [String: _StoredValue]
    ) -> CloudPushPlan {
        var plan = CloudPushPlan()
        guard cloud.sync != nil, var current = record else { return plan }
        let synced = slots.filter { $0.syncs && !$0.isConstant }
        current.pending.formIntersection(synced.map(\.name))
        for slot in synced where current.pending.contains(slot.name) {
            let value = settings[slot.name]?.cloudValue
            if let base = current.base {
                current.pending.remove(slot.name)
                guard value != base[slot.name] else { continue }
            }
            let key = cloudKey(of: slot)
            let propertyList = value?.propertyListValue
            let byteCount = propertyList.map(CloudLimits.byteCount(of:)) ?? 0
            if let refusal = CloudLimits.refusal(key: key, byteCount: byteCount) {
                current.pending.remove(slot.name)
                plan.failures.append(.cloudValueRefused(key: key, setting: slot.name, reason: refusal))
                continue
            }
            plan.values.append(
                CloudSync.Push(key: key, name: slot.name, value: propertyList, previousBase: current.base?[slot.name]))
            current.base?[slot.name] = value
        }
        record = current
        return plan
    }

    /// Reports synced values that could not be sent or taken on ``changes``.
    func reportSyncFailures(_ failures: [AppSettingsError]) {
        guard !failures.isEmpty else { return }
        for failure in failures { Log.notice("\(userDefaultsKey): \(failure)") }
        let continuations = _state.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            for failure in failures { continuation.yield(.syncFailed(failure)) }
        }
    }
}
