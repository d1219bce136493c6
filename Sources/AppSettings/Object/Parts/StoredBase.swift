import Foundation

/// What the store held after this object's last load or save: the base of the next merge and
/// what every save carries over. One value, replaced whole by a load, a save or an adoption.
struct StoredBase {
    /// The stored bytes (while they are still what is stored, nobody else wrote since).
    var data: Data?
    /// The same set as value trees by stored name.
    var values: [String: StoredValue] = [:]
    /// Stored values of settings this class does not declare: carried over on every save.
    var unknownValues: [String: StoredValue] = [:]
    /// The schema version the set was stored with (after a migration, the class's).
    var schemaVersion: Int?
    /// What was stored when a load could not use all of it: backed up before it is replaced.
    var unreadable: PreferencesValue?
    /// The records of the set's replicas, carried unread: each replica reads only its own.
    var records = ReplicaRecords()

    /// The one rule for the schema version a save writes: the stored one, or the class's when it
    /// is newer (a set is never written with an older version than it was read with).
    func schemaVersionToWrite(classVersion: Int) -> Int {
        max(schemaVersion ?? 0, classVersion)
    }
}
