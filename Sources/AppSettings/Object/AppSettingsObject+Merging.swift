import Foundation

// Several writers of one settings set (an app and its extensions, two windows, two objects of
// one suite): a synchronization re-reads what is stored under the domain's lock and writes a
// three-way merge of
// - the base: what this object last loaded or saved (`ObjectState.stored`, a `StoredBase`),
// - this object's values (a setting counts as changed while its `changeGenerations` entry is
//   above `savedGeneration`),
// - what is stored now.
// A setting this object changed keeps its value; every other one takes the stored value; settings
// this class does not declare are the stored set's. Settings are merged per top-level setting: a
// nested settings object is one setting. The merged values are adopted by the object afterwards.

extension SettingsLedger {
    /// What a synchronization decided to write under the domain's lock (merged with another
    /// writer's set or not).
    struct WriteDecision {
        /// What the store holds once this is written: the object's stored base afterwards.
        var stored: StoredBase
        /// The archive written.
        var data: Data { stored.data ?? Data() }
        /// What was written, as value trees by stored name: the base of the next merge.
        var settings: [String: StoredValue] { stored.values }
        /// An unpublished copy holding the merged values, when settings came from the store.
        var merged: AppSettingsObject?
        /// Settings changed here and in the store since the base, with different values: this
        /// object's values were written.
        var conflicts: [String] = []
        /// Synced values the cloud would refuse, not sent (their local save went ahead).
        var cloudFailures: [AppSettingsError] = []
    }

    /// A finished synchronization, for what is reported after the locks are released.
    struct FinishedSave {
        var decision: WriteDecision
        var backupKey: String?
        /// Objects (this one last) and the positions of the settings they took from the store.
        var adopted: [(object: AppSettingsObject, indices: [Int])]
    }

    /// Decides what to write, from `snapshot` and what is stored now (read under the domain's lock);
    /// the archive carries `generation` (the store's, see ``SettingsStore/write(_:)``).
    func merged(
        _ snapshot: Snapshot, cloud: CloudSnapshot, with stored: PreferencesValue?, generation: Int64
    ) throws -> SettingsStore.Write<WriteDecision> {
        switch stored {
        case nil:
            // Nothing stored (never written, or removed): this object's set as it is.
            return try written(snapshot, cloud: cloud, backup: nil, generation: generation)
        case .data(let bytes) where bytes == snapshot.stored.data:
            // Nobody else wrote since the last load or save: nothing to merge.
            return try written(snapshot, cloud: cloud, backup: snapshot.stored.unreadable, generation: generation)
        case .other:
            // Not a settings set: kept under a backup key, never merged into.
            return try written(snapshot, cloud: cloud, backup: stored, generation: generation)
        case .data(let bytes):
            let storedSettings = codec.readStoredSettings(bytes)
            guard let entries = storedSettings.entries, storedSettings.error == nil else {
                // Unreadable: kept under a backup key and replaced, as after a failed load.
                return try written(snapshot, cloud: cloud, backup: stored, generation: generation)
            }
            return try merged(
                snapshot, cloud: cloud, with: entries, storedSettings: storedSettings, bytes: bytes,
                generation: generation)
        }
    }

    private func merged(
        _ snapshot: Snapshot,
        cloud: CloudSnapshot,
        with entries: [String: StoredValue],
        storedSettings: SettingsCodec.StoredSettings,
        bytes: Data,
        generation: Int64
    ) throws -> SettingsStore.Write<WriteDecision> {
        var fromStore: [String: StoredValue] = [:]
        var changedOnBothSides: [String] = []
        for slot in slots where !slot.isConstant {
            guard let theirs = entries[slot.name], theirs != snapshot.stored.values[slot.name] else { continue }
            if snapshot.changedSinceBase(slot.index) {
                changedOnBothSides.append(slot.name)
            } else {
                fromStore[slot.name] = theirs
            }
        }
        var problems = storedSettings.problems
        var source = snapshot
        var mergedObject: AppSettingsObject?
        if !fromStore.isEmpty {
            // Filled on a copy: conversion, `validate:` and `checkAfterDecode()` run as for a load.
            let scratch = object.ledger.makeScratchCopy(copyingValues: false)
            scratch.ledger.fill(from: snapshot)
            _ = scratch.ledger.fill(fromStored: fromStore) { problems.append($0) }
            source = scratch.ledger.takeSnapshot()
            mergedObject = scratch
        }
        let declared = Set(storedSettingNames)
        source.stored.unknownValues = entries.filter { !declared.contains($0.key) }
        source.stored.schemaVersion = [snapshot.stored.schemaVersion, storedSettings.schemaVersion].compactMap { $0 }
            .max()
        // Stored settings this version cannot use are kept under a backup key; the rest is merged.
        var result = try written(
            source,
            cloud: cloud,
            backup: problems.error(key: userDefaultsKey) == nil ? nil : .data(bytes),
            generation: generation,
            mergingCloudRecord: .some(CloudRecord.decoded(storedSettings.syncRecord))
        )
        result.decision.merged = mergedObject
        result.decision.conflicts = changedOnBothSides.filter { result.decision.settings[$0] != entries[$0] }
        return result
    }

    /// The archive of `snapshot`; the synced settings to send are sent once the store found that
    /// it fits its domain, just before it is written (see `AppSettingsObject+Syncing.swift`).
    /// `mergingCloudRecord` is the stored set's, when another writer stored it since the base.
    private func written(
        _ snapshot: Snapshot,
        cloud: CloudSnapshot,
        backup: PreferencesValue?,
        generation: Int64,
        mergingCloudRecord storedCloudRecord: CloudRecord?? = nil
    ) throws -> SettingsStore.Write<WriteDecision> {
        let settings = try codec.encodedSettings(snapshot)
        var cloudRecord = object.syncCoordinator.cloudRecordToWrite(cloud, storedRecord: storedCloudRecord)
        let pushes = object.syncCoordinator.plannedPushes(cloud, record: &cloudRecord, settings: settings)
        let writeID = Int64.random(in: 1...Int64.max)
        let schemaVersion = snapshot.stored.schemaVersionToWrite(classVersion: type(of: object).schemaVersion)
        let data = codec.archive(
            settings, schemaVersion: schemaVersion, writeID: writeID, generation: generation,
            syncRecord: cloudRecord?.archived)
        var decision = WriteDecision(
            stored: StoredBase(
                data: data,
                values: settings,
                unknownValues: snapshot.stored.unknownValues,
                schemaVersion: schemaVersion,
                unreadable: nil,
                syncRecord: cloudRecord?.archived
            )
        )
        decision.cloudFailures = pushes.failures
        var write = SettingsStore.Write(data: data, writeID: writeID, backup: backup, decision: decision)
        // A change not sent now (signed out, another account) is sent at a later check.
        if let sync = cloud.sync, !pushes.values.isEmpty || !cloud.changed.isEmpty {
            write.willWrite = { sync.send(pushes.values) }
        }
        return write
    }

    /// After the write: what was written is the new stored base (what could not be read before is
    /// replaced, and was kept under a backup key when it was still stored); takes over the merged values.
    /// Returns what to announce once the locks are released.
    func takeWritten(_ decision: WriteDecision, over snapshot: Snapshot) -> [(
        object: AppSettingsObject, indices: [Int]
    )] {
        _state.withLock { state in
            state.stored = decision.stored
            // The store was read for this write: it is available again.
            if case .storeUnavailable? = state.lastLoadError { state.lastLoadError = nil }
        }
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
                guard state.changes.changeGenerations[slot.index] <= snapshot.changes.generation else { continue }
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
        object.syncCoordinator.reportSyncFailures(synchronization.decision.cloudFailures)
        let conflicts = synchronization.decision.conflicts
        guard !conflicts.isEmpty else { return }
        Log.notice(
            "\(userDefaultsKey): \(conflicts.joined(separator: ", ")) changed here and in the store since the "
                + "last load or save; this synchronization wrote this object's values")
        let continuations = announcer.listeners
        for continuation in continuations { continuation.yield(.mergeConflicts(conflicts)) }
    }
}
