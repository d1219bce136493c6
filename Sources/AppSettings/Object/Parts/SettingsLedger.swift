import Foundation

/// The ledger of an object: what is stored (``StoredBase``) and what changed
/// (``ChangeTracking``), for a load, a save and another writer's notice.
struct SettingsLedger: ObjectPart {
    let object: AppSettingsObject

    /// Whether a stored setting changed since the last load or save.
    var hasUnsavedChanges: Bool {
        _state.withLock { $0.ledger.changes.hasUnsavedChanges }
    }

    /// What went wrong in the last load, or `nil`.
    var lastLoadError: AppSettingsError? {
        _state.withLock { $0.ledger.lastLoadError }
    }

    /// Starts tracking the changes of the object's settings (its slots are attached).
    func startTracking() {
        _state.withLock { $0.ledger.startTracking(settingCount: slots.count) }
    }

    /// Records what a decoding from another archive (`init?(coder:)`) left: the stored values no
    /// setting took, and what went wrong.
    func recordDecoded(unknownValues: [String: StoredValue], error: AppSettingsError?) {
        _state.withLock { state in
            state.ledger.recordUnknownValues(unknownValues)
            state.ledger.recordLoadError(error)
        }
    }

    /// What the store held after the last load or save, the base of a merge.
    var storedBase: StoredBase {
        _state.withLock { $0.ledger.stored }
    }

    /// The stored values of this set that no setting took (an object decoded inside a collection).
    func recordUnknownValues(_ unknownValues: [String: StoredValue]) {
        _state.withLock { $0.ledger.recordUnknownValues(unknownValues) }
    }

    /// The settings at `indices` changed: they are unsaved now.
    func recordChange(of indices: [Int]) {
        _state.withLock { $0.ledger.recordChange(of: indices) }
    }

    /// Whether the setting at `index` changed since the last load or save.
    func changedSinceSave(_ index: Int) -> Bool {
        _state.withLock { $0.ledger.changes.changedSinceSave(index) }
    }

    /// A copy's unsaved state set as its original's: unsaved when `unsaved`, saved otherwise.
    func markUnsaved(_ unsaved: Bool) {
        _state.withLock { $0.ledger.markUnsaved(unsaved) }
    }
}

/// The ledger's part of an object's state (`ObjectState.ledger`), guarded by the object's lock:
/// what is stored and what changed. Its fields are set only here, by the methods below, each one
/// event of a load, a save or an assignment; the object's code reads them under the lock.
@usableFromInline
struct LedgerState {
    /// Which settings changed since the last load or save.
    private(set) var changes = ChangeTracking()
    /// What the store held after the last load or save (the base of a merge), in one value.
    private(set) var stored = StoredBase()
    /// What went wrong in the last load.
    private(set) var lastLoadError: AppSettingsError?
    /// Whether another process's write is loaded at once.
    private(set) var reloadsWhenStoredSettingsChange = false

    init() {}

    mutating func startTracking(settingCount: Int) {
        changes = ChangeTracking(settingCount: settingCount)
    }

    /// Counts one change of the stored setting at `index`: the path of every assignment.
    @usableFromInline mutating func recordChange(of index: Int) {
        changes.recordChange(of: index)
    }

    /// Counts one change of the stored settings at `indices` (none: nothing changed).
    mutating func recordChange(of indices: [Int]) {
        changes.recordChange(of: indices)
    }

    /// Counts a change of the whole set that no single setting holds (a set taken from a
    /// recovery copy or from legacy keys): unsaved until saved.
    mutating func recordWholeSetChange() {
        changes.recordWholeSetChange()
    }

    /// No unsaved changes: what the object holds is what is stored.
    mutating func markSaved() {
        changes.markSaved(upTo: changes.generation)
    }

    /// No unsaved changes up to `generation` (a snapshot's); a later change stays unsaved.
    mutating func markSaved(upTo generation: UInt64) {
        changes.markSaved(upTo: max(changes.savedGeneration, generation))
    }

    /// Unsaved when `unsaved`, saved otherwise (a copy's state set as its original's).
    mutating func markUnsaved(_ unsaved: Bool) {
        changes.markSaved(upTo: unsaved ? changes.generation &- 1 : changes.generation)
    }

    mutating func recordLoadError(_ error: AppSettingsError?) {
        lastLoadError = error
    }

    /// A load found `stored`, or `error`: the new stored base. What changed after
    /// `changedAfter` (repairs made while the values went in) stays unsaved.
    mutating func recordLoad(_ stored: StoredBase, error: AppSettingsError?, changedAfter generation: UInt64) {
        self.stored = stored
        lastLoadError = error
        changes.markSaved(upTo: generation)
    }

    /// A write stored `stored`: the new stored base; the store was read, so it is available again.
    mutating func recordWrite(_ stored: StoredBase) {
        self.stored = stored
        if case .storeUnavailable? = lastLoadError { lastLoadError = nil }
    }

    /// The stored values of this set that no setting took.
    mutating func recordUnknownValues(_ unknownValues: [String: StoredValue]) {
        stored.unknownValues = unknownValues
    }

    /// A scratch copy filled from `snapshot` takes the undeclared settings and the schema version.
    mutating func takeUndeclared(of snapshot: StoredBase) {
        stored.unknownValues = snapshot.unknownValues
        stored.schemaVersion = snapshot.schemaVersion
    }

    /// Takes what a load into another object of the same class found: the stored base (the base
    /// of the next merge, the settings this class does not declare, the schema version, what
    /// could not be read, the replicas' records) and the load's error.
    mutating func takeLoad(of loaded: LedgerState) {
        stored = loaded.stored
        lastLoadError = loaded.lastLoadError
    }

    mutating func setReloadsWhenStoredSettingsChange(_ reloads: Bool) {
        reloadsWhenStoredSettingsChange = reloads
    }
}

extension AppSettingsObject {
    /// What is stored and what changed: loads, saves, merges (``SettingsLedger``).
    var ledger: SettingsLedger { SettingsLedger(object: self) }
}
