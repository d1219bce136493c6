import Foundation

/// Which settings of one object changed since the last load or save: the counters every
/// assignment moves, a save compares and a merge consults. Guarded by the object's `_state`.
@usableFromInline
struct ChangeTracking: Sendable {
    /// Counts changes to stored settings.
    @usableFromInline var generation: UInt64 = 0
    /// The `generation` of the last load or save: the object is unsaved while they differ.
    var savedGeneration: UInt64 = 0
    /// The `generation` of each setting's last change, by declaration position: a setting
    /// changed since the last load or save while its entry is above `savedGeneration`.
    @usableFromInline var changeGenerations: [UInt64] = []

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
    @inlinable mutating func recordChange(of index: Int) {
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

    /// No unsaved changes: what the object holds is what is stored.
    mutating func markSaved() {
        savedGeneration = generation
    }
}
