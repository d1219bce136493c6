import Foundation

/// Which settings of one object changed since the last load or save: the counters every
/// assignment moves, a save compares and a merge consults. Guarded by the object's `_state`, in
/// the ledger's part of it (``LedgerState``); its counters move only by the methods below.
struct ChangeTracking: Sendable {
    /// Counts changes to stored settings.
    private(set) var generation: UInt64 = 0
    /// The `generation` of the last load or save: the object is unsaved while they differ.
    private(set) var savedGeneration: UInt64 = 0
    /// The `generation` of each setting's last change, by declaration position: a setting
    /// changed since the last load or save while its entry is above `savedGeneration`.
    private(set) var changeGenerations: [UInt64] = []

    init(settingCount: Int = 0) {
        changeGenerations = Array(repeating: 0, count: settingCount)
    }

    /// Whether a stored setting changed since the last load or save.
    var hasUnsavedChanges: Bool { generation != savedGeneration }

    /// Whether the setting at `index` changed since the last load or save.
    func changedSinceSave(_ index: Int) -> Bool {
        changed(index, since: savedGeneration)
    }

    /// Whether the setting at `index` changed after `generation` (a value ``generation`` had).
    func changed(_ index: Int, since generation: UInt64) -> Bool {
        changeGenerations[index] > generation
    }

    /// Counts one change of the stored setting at `index`.
    mutating func recordChange(of index: Int) {
        generation &+= 1
        changeGenerations[index] = generation
    }

    /// Counts one change of the stored settings at `indices` (none: nothing changed).
    mutating func recordChange(of indices: [Int]) {
        guard !indices.isEmpty else { return }
        generation &+= 1
        for index in indices { changeGenerations[index] = generation }
    }

    /// Counts a change of the whole set that no single setting holds (a set taken from a
    /// recovery copy or from legacy keys): unsaved until saved.
    mutating func recordWholeSetChange() {
        generation &+= 1
    }

    /// The counters as of the last load or save (a snapshot's copy: what is adopted over it
    /// leaves every setting changed since untouched).
    mutating func rewindToLastSave() {
        generation = savedGeneration
    }

    /// No unsaved changes up to `generation`: a change counted after it stays unsaved.
    mutating func markSaved(upTo generation: UInt64) {
        savedGeneration = generation
    }
}
