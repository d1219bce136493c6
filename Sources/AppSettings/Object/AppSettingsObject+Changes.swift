import Foundation
import Observation

// How changes move through an object: single assignments, whole-set replacements (reset,
// revert, update) prepared on a scratch copy and adopted in one step (nested objects are in
// `+Nesting`, other writers' notices in `+OtherWriters`).

extension AppSettingsObject {
    /// Called after a setting's value changed: Observation, the parent, and notifications.
    @usableFromInline
    final func _settingDidChange(_ slot: AnySettingSlot) {
        if slot.holdsSettingsObject, let nested = slot.nestedObject {
            nested.announcer.embed(in: self)
            // The new nested object takes the overrides of its place in the set.
            overrides.topmostObject.overrides.reapplyOverrides()
        }
        announcer.announce([slot.index])
    }
}

extension Announcer {
    /// Tells observers, the parent object (unless `propagatesToParent` is `false`: the parent made
    /// the change) and notification observers that settings changed. A change of the user's value
    /// under an override is told to the parent only, unless `hidingOverridden` is `false`.
    ///
    /// Deliveries are made one thread at a time per object, outside the lock, and coalesced
    /// (``Announcements``); the parent is told at once, on this thread.
    func announce(_ indices: [Int], propagatesToParent: Bool = true, hidingOverridden: Bool = true) {
        guard !indices.isEmpty else { return }
        // Read once: every assignment comes here, and each `slots` of a part is the object's.
        let slots = object.slots
        let (parent, seen, first) = object._state.withLock { state in
            let hidden = hidingOverridden && indices.contains { slots[$0].overrideSource != nil }
            let seen = hidden ? indices.filter { slots[$0].overrideSource == nil } : indices
            return (state.announcements.parent?.object, seen, state.announcements.delivery(of: seen))
        }
        deliver(first)
        if propagatesToParent, let parent, indices.contains(where: { !slots[$0].isConstant }) {
            parent.announcer.nestedObjectDidChange(object, seen: !seen.isEmpty)
        }
    }

    /// Makes `first`, then the changes merged meanwhile, until none waits. For each: Observation
    /// told of its settings, then the notification and its listeners. Called with no lock held, by
    /// the one thread ``Announcements/delivery(of:)`` chose.
    private func deliver(_ first: Delivery?) {
        let object = object
        let slots = object.slots
        var next = first
        while let (seen, listeners) = next {
            for index in seen {
                object._registrar.willSet(object, keyPath: slots[index].observationKeyPath)
                object._registrar.didSet(object, keyPath: slots[index].observationKeyPath)
            }
            // One setting (every assignment): its notification's userInfo is made once.
            let single = seen.count == 1 ? slots[seen[0]] : nil
            let names = single.map { [$0.name] } ?? seen.sorted().map { slots[$0].name }
            NotificationCenter.default.post(
                name: AppSettingsObject.didChangeNotification,
                object: object,
                userInfo: single?.changeUserInfo ?? [AppSettingsObject.changedSettingNamesKey: names]
            )
            for continuation in listeners { continuation.yield(.settingsChanged(names)) }
            next = object._state.withLock { $0.announcements.nextDelivery() }
        }
    }

    /// Runs `body`, then announces every setting that changed during it once, in one notification.
    func inTransaction(_ body: () -> Void) {
        _state.withLock { $0.announcements.beginTransaction() }
        body()
        deliver(_state.withLock { $0.announcements.endTransaction() })
    }
}

extension SettingsLedger {
    /// A new instance of the same class bound to the same store that nobody else sees, with the
    /// developer defaults of its declarations or, with `copyingValues`, this object's values.
    func makeScratchCopy(copyingValues: Bool) -> AppSettingsObject {
        let scratch = type(of: object).init(userDefaults: ScratchCopyDefaults(for: store.location))
        if copyingValues { scratch.ledger.fill(from: takeSnapshot()) }
        return scratch
    }

    /// Puts the values of `snapshot` (of an object of the same class) into this unpublished
    /// object, nested ones included, with the undeclared settings and the schema version;
    /// nothing is announced. How a scratch copy is filled (a live object uses `take(_:as:)`).
    func fill(from snapshot: Snapshot) {
        _state.withLock { state in
            for slot in slots where slot.nestedObject == nil {
                if let value = snapshot.values[slot.index] { _ = slot.assign(value) }
            }
            state.ledger.takeUndeclared(of: snapshot.stored)
        }
        for slot in slots {
            if let nested = slot.nestedObject, let nestedSnapshot = snapshot.nested[slot.index] {
                nested.ledger.fill(from: nestedSnapshot)
            }
        }
    }

    /// What a whole-set replacement is.
    enum Replacement {
        /// New values: unsaved changes (a reset to developer defaults, ``update(from:)``).
        case change
        /// What is stored now, with its load state: no unsaved changes (a revert, a removal).
        case storedState
    }

    /// Replaces every value in one step: fills a scratch copy (developer defaults, or with
    /// `copyingValues` this object's values) with `fill`, then adopts it as `replacement` says.
    /// Other threads never see a half-replaced set, and observers get one notification. When
    /// `fill` throws, nothing changes.
    func replaceValues<Result>(
        copyingValues: Bool = false,
        as replacement: Replacement,
        _ fill: (AppSettingsObject) throws -> Result
    ) rethrows -> Result {
        let scratch = makeScratchCopy(copyingValues: copyingValues)
        let result = try fill(scratch)
        take(scratch, as: replacement)
        return result
    }

    /// Takes over the values of an unpublished `scratch` of the same class in one step, then
    /// announces every setting that changed in one notification.
    private func take(_ scratch: AppSettingsObject, as replacement: Replacement) {
        let takingLoadState = replacement == .storedState
        announcer.inTransaction {
            for (slot, scratchSlot) in zip(slots, scratch.slots) {
                if let nested = slot.nestedObject, let scratchNested = scratchSlot.nestedObject {
                    nested.ledger.take(scratchNested, as: replacement)
                }
            }
            let loadState = scratch._state.withLock { $0 }
            let changed = _state.withLock { state -> [Int] in
                var changed: [Int] = []
                for (slot, scratchSlot) in zip(slots, scratch.slots) where slot.nestedObject == nil {
                    if slot.assign(scratchSlot.anyValue) { changed.append(slot.index) }
                }
                state.ledger.recordChange(of: changed.filter { !slots[$0].isConstant })
                if takingLoadState {
                    state.takeLoadState(of: loadState)
                    state.ledger.markSaved()
                    // What the load left unsaved (values it repaired, a set it took from a
                    // recovery copy or legacy keys) stays unsaved here.
                    let loaded = loadState.ledger.changes
                    if loaded.hasUnsavedChanges {
                        state.ledger.recordWholeSetChange()
                        state.ledger.recordChange(of: slots.indices.filter(loaded.changedSinceSave))
                    }
                }
                return changed
            }
            announcer.announce(changed)
        }
    }
}

extension ObjectState {
    /// Takes what a load into another object of the same class found: the stored base (the base
    /// of the next merge, the settings this class does not declare, the schema version, what
    /// could not be read, the record of synced settings) and the load's error.
    mutating func takeLoadState(of loaded: Self) {
        ledger.takeLoad(of: loaded.ledger)
        settingsApp.takeLoaded(loaded.settingsApp)
    }

}
