import Foundation

/// The ledger of an object: what is stored (``StoredBase``) and what changed
/// (``ChangeTracking``), for a load, a save and another writer's notice.
struct SettingsLedger: ObjectPart {
    let object: AppSettingsObject

    /// Whether a stored setting changed since the last load or save.
    var hasUnsavedChanges: Bool {
        _state.withLock { $0.changes.hasUnsavedChanges }
    }

    /// What went wrong in the last load, or `nil`.
    var lastLoadError: AppSettingsError? {
        _state.withLock { $0.lastLoadError }
    }

    /// Starts tracking the changes of the object's settings (its slots are attached).
    func startTracking() {
        _state.withLock { $0.changes = ChangeTracking(settingCount: slots.count) }
    }

    /// Records what a decoding from another archive (`init?(coder:)`) left: the stored values no
    /// setting took, and what went wrong.
    func recordDecoded(unknownValues: [String: StoredValue], error: AppSettingsError?) {
        _state.withLock { state in
            state.stored.unknownValues = unknownValues
            state.lastLoadError = error
        }
    }

    /// What the store held after the last load or save, the base of a merge.
    var storedBase: StoredBase {
        _state.withLock { $0.stored }
    }

    /// The stored values of this set that no setting took (an object decoded inside a collection).
    func recordUnknownValues(_ unknownValues: [String: StoredValue]) {
        _state.withLock { $0.stored.unknownValues = unknownValues }
    }

    /// The settings at `indices` changed: they are unsaved now.
    func recordChange(of indices: [Int]) {
        _state.withLock { Self.recordChange(of: indices, in: &$0) }
    }

    /// The same, for a caller holding the object's lock and changing the slots in the same moment.
    static func recordChange(of indices: [Int], in state: inout ObjectState) {
        state.changes.recordChange(of: indices)
    }

    /// What counts the changes of the stored settings now, for a caller holding the object's
    /// lock: ``changed(_:since:in:)`` tells a setting changed after it.
    static func changeGeneration(in state: ObjectState) -> UInt64 {
        state.changes.generation
    }

    /// Whether the setting at `index` changed after `generation` (a ``changeGeneration(in:)``).
    static func changed(_ index: Int, since generation: UInt64, in state: ObjectState) -> Bool {
        state.changes.changed(index, since: generation)
    }

    /// Whether the setting at `index` changed since the last load or save.
    func changedSinceSave(_ index: Int) -> Bool {
        _state.withLock { $0.changes.changedSinceSave(index) }
    }

    /// A copy's unsaved state set as its original's: unsaved when `unsaved`, saved otherwise.
    func markUnsaved(_ unsaved: Bool) {
        _state.withLock { state in
            state.changes.savedGeneration = unsaved ? state.changes.generation &- 1 : state.changes.generation
        }
    }
}

extension AppSettingsObject {
    /// What is stored and what changed: loads, saves, merges (``SettingsLedger``).
    var ledger: SettingsLedger { SettingsLedger(object: self) }
}
