import Foundation

/// An object's values of one moment (nested objects' too), with its change counters and stored
/// base, taken under its lock and archived or merged outside it (`takeSnapshot()`).
struct Snapshot {
    /// The object's change counters at that moment.
    var changes: ChangeTracking
    var values: [Any?]
    var nested: [Int: Snapshot]
    /// What the store held after the last load or save, as the object knew it then.
    var stored: StoredBase

    /// Makes the snapshot's moment the last load or save (nested objects' too), so that what
    /// is adopted over it leaves every setting changed since untouched.
    mutating func excludeChangesSinceLastLoad() {
        changes.rewindToLastSave()
        for index in nested.keys { nested[index]?.excludeChangesSinceLastLoad() }
    }

    /// Whether the setting at `index` changed since the last load or save.
    func changedSinceBase(_ index: Int) -> Bool {
        changes.changedSinceSave(index)
    }
}
