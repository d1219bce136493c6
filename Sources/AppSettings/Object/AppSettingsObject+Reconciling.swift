import Foundation

// Every write of the set reconciles it by one rule (`Reconciliation`): under the domain's lock,
// what is stored now is re-read and each replica (`AppSettingsObject+Replicas.swift`) proposes
// what it changed; this object's unsaved changes win, then the replicas', then the stored set's,
// per top-level setting. The values taken go through a scratch copy, then the object adopts them.

extension SettingsLedger {
    /// What a reconciliation decided to write under the domain's lock.
    struct WriteDecision {
        /// What the store holds once this is written: the object's stored base afterwards.
        var stored: StoredBase
        /// Whether anything was written (a pull that finds nothing to change writes nothing).
        var wrote = true
        /// The archive written.
        var data: Data { stored.data ?? Data() }
        /// What was written, as value trees by stored name: the base of the next merge.
        var settings: [String: StoredValue] { stored.values }
        /// An unpublished copy holding the merged values, when settings came from elsewhere.
        var merged: AppSettingsObject?
        /// Settings changed here and in the store since the base, with different values: this
        /// object's values were written.
        var conflicts: [String] = []
        /// Proposals of replicas the settings refused.
        var refused: [String: SettingProblem] = [:]
    }

    /// A finished reconciliation, for what is reported after the locks are released.
    struct FinishedSave {
        var decision: WriteDecision
        var backupKey: String?
        /// Objects (this one last) and the positions of the settings they took from the store.
        var adopted: [(object: AppSettingsObject, indices: [Int])]
    }

    /// The one path of every write of the set: a save (`.unsavedChanges`) or a replica's pull
    /// (`.storedState`, which writes only when something changed). Under `_synchronization` and
    /// the domain's lock: the snapshot, what is stored now, the replicas' proposals, the rule,
    /// the write; then the object takes what it did not change since, and the replicas finish.
    @discardableResult
    func reconcile(_ writing: Reconciliation.Writing, replicas: [any SettingsReplica]) throws -> FinishedSave? {
        if let parent = embeddingParent {
            return try parent.ledger.reconcile(writing, replicas: parent.ledger.replicas())
        }
        let needsWriting = replicas.contains { $0.needsWriting }
        guard writing == .storedState || hasUnsavedChanges || needsWriting else { return nil }
        try checkStorable()
        for replica in replicas { try replica.prepare(writing) }
        // One reconciliation of an object at a time, so the last snapshot taken is the last written.
        let finished: FinishedSave? = try HeldLocks.holding {
            try object._synchronization.withLock { _ in
                var snapshot = takeSnapshot()
                // Changed since the check above? Another thread may have synchronized meanwhile.
                guard writing == .storedState || snapshot.changes.hasUnsavedChanges || needsWriting else { return nil }
                // Under the domain's lock: what is stored now, reconciled with this object and its replicas.
                let (backupKey, decision) = try store.write { domain in
                    var reconciliation = Reconciliation(
                        writing, snapshot: snapshot, stored: domain.stored, read: codec.readStoredSettings)
                    for replica in replicas { try replica.read(&reconciliation, from: domain) }
                    return try decideWrite(reconciliation, replicas: replicas, generation: domain.generation)
                }
                guard decision.wrote else { return FinishedSave(decision: decision, backupKey: nil, adopted: []) }
                // A pull leaves every unsaved change as it is: only what was not changed is taken.
                if writing == .unsavedChanges { markSaved(snapshot) } else { snapshot.excludeChangesSinceLastLoad() }
                return FinishedSave(
                    decision: decision, backupKey: backupKey, adopted: takeWritten(decision, over: snapshot))
            }
        }
        guard let finished else { return nil }
        if finished.decision.wrote {
            if let backupKey = finished.backupKey {
                Log.notice("\(userDefaultsKey): the value that could not be read was kept under '\(backupKey)'")
            }
            report(finished)
        }
        for replica in replicas {
            replica.finish(Reconciliation.Finished(wrote: finished.decision.wrote, refused: finished.decision.refused))
        }
        if finished.decision.wrote { StoreRegistry.storeDidChange(object, stored: finished.decision.data) }
        return finished
    }

    /// Decides what to write under the domain's lock: the rule, setting by setting, then the
    /// archive (carrying `generation`, the store's: ``SettingsStore/LockedRead/generation``) and
    /// what each replica adds. Writes nothing itself.
    func decideWrite(
        _ reconciliation: Reconciliation, replicas: [any SettingsReplica], generation: Int64
    ) throws -> SettingsStore.Write<WriteDecision> {
        let snapshot = reconciliation.snapshot
        var problems = reconciliation.storedSettings?.problems ?? LoadProblems()
        var fromElsewhere: [String: StoredValue] = [:]
        var changedOnBothSides: [String] = []
        var changedHere: Set<String> = []
        let storedValues = reconciliation.storedValues
        for slot in slots where !slot.isConstant {
            switch reconciliation.origin(ofSetting: slot.name, at: slot.index) {
            case .object?:
                changedHere.insert(slot.name)
                if let now = storedValues?[slot.name], now != snapshot.stored.values[slot.name] {
                    changedOnBothSides.append(slot.name)
                }
            case .replica?:
                guard let proposal = reconciliation.proposals[slot.name] else { continue }
                fromElsewhere[slot.name] = proposal.value
                if proposal.madeHere { changedHere.insert(slot.name) }
            case .storedSet?:
                fromElsewhere[slot.name] = storedValues?[slot.name]
            case nil:
                continue
            }
        }
        var source = snapshot
        var merged: AppSettingsObject?
        var refused: [String: SettingProblem] = [:]
        var settings: [String: StoredValue]?
        if reconciliation.writing == .storedState {
            // A pull writes what is stored, with what the replicas changed: nothing of this object's.
            let stored = storedValues ?? [:]
            if fromElsewhere.isEmpty && reconciliation.storedIsBase && storedValues != nil {
                settings = stored
            } else {
                fromElsewhere.merge(stored) { taken, _ in taken }
            }
        }
        if settings == nil && (!fromElsewhere.isEmpty || reconciliation.writing == .storedState) {
            // Filled on a copy: conversion, `validate:` and `checkAfterDecode()` run as for a load.
            let scratch = object.ledger.makeScratchCopy(copyingValues: false)
            if reconciliation.writing == .storedState {
                scratch.resetToDeveloperDefaults()
            } else {
                scratch.ledger.fill(from: snapshot)
            }
            _ = scratch.ledger.fill(fromStored: fromElsewhere) { problem in
                if reconciliation.proposals[problem.setting] != nil {
                    refused[problem.setting] = problem
                } else {
                    problems.append(problem)
                }
            }
            source = scratch.ledger.takeSnapshot()
            merged = scratch
        }
        if let storedValues, !reconciliation.storedIsBase || reconciliation.writing == .storedState {
            let declared = Set(storedSettingNames)
            source.stored.unknownValues = storedValues.filter { !declared.contains($0.key) }
            source.stored.schemaVersion = [snapshot.stored.schemaVersion, reconciliation.storedSettings?.schemaVersion]
                .compactMap { $0 }.max()
        }
        let written = try settings ?? codec.encodedSettings(source)
        let storedRecords =
            storedValues != nil
            ? reconciliation.storedRecords
            : reconciliation.writing == .unsavedChanges ? snapshot.stored.records : [:]
        let decided = Reconciliation.Decided(
            writing: reconciliation.writing, settings: written, storedRecords: storedRecords,
            changedHere: changedHere, changesStoredSet: storedValues.map { $0 != written } ?? true,
            taken: reconciliation.proposals.filter { fromElsewhere[$0.key] != nil })
        var replicaWrite = Reconciliation.ReplicaWrite(records: decided.storedRecords)
        for replica in replicas { replica.write(decided, into: &replicaWrite) }
        let writeID = Int64.random(in: 1...Int64.max)
        let schemaVersion = source.stored.schemaVersionToWrite(classVersion: type(of: object).schemaVersion)
        let data = codec.archive(
            written, schemaVersion: schemaVersion, writeID: writeID, generation: generation,
            records: replicaWrite.records)
        var decision = WriteDecision(
            stored: StoredBase(
                data: data, values: written, unknownValues: source.stored.unknownValues,
                schemaVersion: schemaVersion, unreadable: nil, records: replicaWrite.records),
            merged: merged, refused: refused)
        decision.conflicts = changedOnBothSides.filter { written[$0] != storedValues?[$0] }
        // A pull writes only what changed something: the set, a record, or a replica's keys.
        decision.wrote =
            reconciliation.writing == .unsavedChanges || decided.changesStoredSet || replicaWrite.needsWrite
            || replicaWrite.records != decided.storedRecords
        var write = SettingsStore.Write(
            data: decision.wrote ? data : nil, writeID: writeID, backup: backup(of: reconciliation, problems: problems),
            decision: decision)
        write.entries = replicaWrite.entries
        write.beforeWriting = replicaWrite.beforeWriting
        return write
    }

    /// What is kept under a backup key before the write: stored bytes nobody could use.
    private func backup(of reconciliation: Reconciliation, problems: LoadProblems) -> PreferencesValue? {
        switch reconciliation.stored {
        case nil: nil
        case _ where reconciliation.storedIsBase: reconciliation.snapshot.stored.unreadable
        case .other?: reconciliation.stored
        case .data(let bytes)?:
            reconciliation.storedValues == nil || problems.error(key: userDefaultsKey) != nil ? .data(bytes) : nil
        }
    }

    /// After the write: what was written is the new stored base (what could not be read before is
    /// replaced, and was kept under a backup key when it was still stored); takes over the merged values.
    /// Returns what to announce once the locks are released.
    func takeWritten(_ decision: WriteDecision, over snapshot: Snapshot) -> [(
        object: AppSettingsObject, indices: [Int]
    )] {
        _state.withLock { $0.ledger.recordWrite(decision.stored) }
        guard let merged = decision.merged else { return [] }
        var adopted: [(object: AppSettingsObject, indices: [Int])] = []
        takeStoredValues(of: merged, over: snapshot, into: &adopted)
        return adopted
    }

    /// Takes over each value of `merged` (an unpublished copy) that differs, for every setting
    /// not changed since `snapshot` was taken (a later change stays, unsaved). The values are
    /// stored ones: no unsaved change is counted.
    func takeStoredValues(
        of merged: AppSettingsObject,
        over snapshot: Snapshot,
        into adopted: inout [(object: AppSettingsObject, indices: [Int])]
    ) {
        let (changed, nested) = _state.withLock { state in
            var changed: [Int] = []
            var nested: [(AppSettingsObject, AppSettingsObject, Snapshot, Int)] = []
            for (slot, mergedSlot) in zip(slots, merged.slots) where !slot.isConstant {
                guard !state.ledger.changes.changed(slot.index, since: snapshot.changes.generation) else { continue }
                if let object = slot.nestedObject {
                    if let mergedObject = mergedSlot.nestedObject, let nestedSnapshot = snapshot.nested[slot.index] {
                        nested.append((object, mergedObject, nestedSnapshot, slot.index))
                    }
                } else if slot.assign(mergedSlot.anyValue) {
                    changed.append(slot.index)
                }
            }
            return (changed, nested)
        }
        var indices = changed
        for (object, mergedObject, nestedSnapshot, index) in nested {
            let count = adopted.count
            object.ledger.takeStoredValues(of: mergedObject, over: nestedSnapshot, into: &adopted)
            if adopted.count > count { indices.append(index) }
        }
        if !indices.isEmpty { adopted.append((object, indices.sorted())) }
    }

    /// Tells observers what a synchronization took from the store, and logs conflicts.
    func report(_ synchronization: FinishedSave) {
        for (object, indices) in synchronization.adopted {
            object.announcer.announce(indices, propagatesToParent: false)
        }
        let conflicts = synchronization.decision.conflicts
        guard !conflicts.isEmpty else { return }
        Log.notice(
            "\(userDefaultsKey): \(conflicts.joined(separator: ", ")) changed here and in the store since the "
                + "last load or save; this synchronization wrote this object's values")
        let continuations = announcer.listeners
        for continuation in continuations { continuation.yield(.mergeConflicts(conflicts)) }
    }
}
