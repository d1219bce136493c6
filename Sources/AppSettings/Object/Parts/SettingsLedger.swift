import Foundation

/// The ledger of an object: what is stored and what changed. A load (`+Loading`), a save
/// (`+Saving`, `+Merging`) and another writer's notice (`+OtherWriters`) go through it: it takes
/// the snapshot a save writes, decides what is written under the store's lock, and records what
/// the store holds afterwards (`ObjectState.stored`, a ``StoredBase``, and `ObjectState.changes`, a
/// ``ChangeTracking``).
struct SettingsLedger: ObjectPart {
    let object: AppSettingsObject
}

extension AppSettingsObject {
    /// What is stored and what changed: loads, saves, merges (``SettingsLedger``).
    var ledger: SettingsLedger { SettingsLedger(object: self) }
}
