import Foundation

/// The layout of a stored settings set: an `NSKeyedArchiver` archive whose root object holds one
/// field per setting, as an `NSCoding` class writes its properties with `encode(_:forKey:)`.
///
/// ```
/// root: AppSettingsStoredSettings {
///     "$formatVersion": 2,                        // inline integers
///     "$schemaVersion": <the subclass's schemaVersion>,
///     "$writeID": <a random integer, new with every write>,
///     "$generation": <one more than the newest set the store held>,  // saved sets only
///     "$cloudBase": { "$format": 2,             // only for synced settings: the version of
///         "stamps": {<name>: [counter, tag]},   // each value, the versions iCloud refused,
///         "refused": {…}, "account": <id> },    // the account (see `CloudRecord`)
///     "$shownBase": {<name>: <value>, …},       // what the Settings app's keys were written
///                                               // with (see `SettingsAppReplica`)
///     "$schema": "[\"b\",[\"?\",\"s\"],…]",          // the settings' forms (StoredSchema), for
///                                               // the appsettings tool; never read by a load
///     <stored name>: <value>, …                   // numbers and Booleans inline, as
/// }                                               // encode(Double/Int64/Bool/Float:forKey:)
///                                                 // store them; anything else an object:
///                                                 // NSString, NSDate, NSArray, NSDictionary
///                                                 // (nested settings), NSData…
/// ```
///
/// The class name is the library's, never the app's, so renaming a class or module loses
/// nothing. Stored names never begin with `$` (they are refused when declared); a carried-over
/// unknown name that does is escaped as `NSKeyedArchiver` escapes keys, with one more `$`, so the
/// two `$` fields above cannot clash with a setting. `NSKeyedUnarchiver` reads the archive with
/// any class registered for ``rootClassName`` whose `init(coder:)` decodes the settings it knows.
/// Format 1, still read, had an `NSDictionary` root `{formatVersion, schemaVersion, settings}`
/// whose `settings` was an `NSDictionary` (every key and value an object of its own).
/// the same values encoded by `PropertyListEncoder`.
enum ArchiveFormat {
    static let formatVersion: Int64 = 2
    /// The class name of the root object (format 2).
    static let rootClassName = "AppSettingsStoredSettings"
    static let formatVersionField = "$formatVersion"
    static let schemaVersionField = "$schemaVersion"
    /// A random number, new with every write: two stores hold the same archive only when one
    /// write reached both, which is how a writer finds the other objects of its store.
    static let writeIDField = "$writeID"
    /// One more at every save than the newest set the store held (its domain or its recovery
    /// copy): how a store with two copies tells the newer one (`SettingsStore`). Absent from older
    /// sets and from archives not saved to a store (`NSCoding`).
    static let generationField = "$generation"
    /// The record of synced settings: per setting the version of its value, the versions iCloud
    /// refused, the account they belong to (see `CloudRecord`).
    static let cloudBaseField = "$cloudBase"
    /// What each key the Settings app shows was written with, by stored name: the base a value
    /// found there is judged against (see `SettingsAppReplica`).
    static let shownBaseField = "$shownBase"
    /// The fields of the replicas' records (``ReplicaRecords``): read and written whole, never
    /// looked into here. Older versions skip them as reserved fields.
    static let replicaRecordFields: Set<String> = [cloudBaseField, shownBaseField]
    /// The first format's synced settings changed here and not sent yet: read and ignored.
    static let cloudPendingField = "$cloudPending"
    /// The settings' forms, ranges, choices and descriptions, compact (see `StoredSchema`): what
    /// the `appsettings` tool checks an edit against. A load never reads it.
    static let schemaField = "$schema"
    /// Format 1's root dictionary keys.
    static let formatVersionKey = "formatVersion"
    static let schemaVersionKey = "schemaVersion"
    static let settingsKey = "settings"
    /// Deeper nesting than this is refused: no settings set needs it, and it bounds recursion.
    static let maximumDepth = 64

    /// The classes of every object in an archive but the root: what a stored value can be.
    static let foundationClasses: [AnyClass] = [
        NSDictionary.self, NSArray.self, NSSet.self, NSString.self, NSNumber.self, NSData.self, NSDate.self,
        NSURL.self, NSUUID.self, NSNull.self,
    ]

    /// The field name of a setting: its stored name, with one more `$` if it begins with one.
    static func fieldName(ofSetting name: String) -> String {
        name.hasPrefix("$") ? "$" + name : name
    }
}

/// Why stored bytes could not be read; the text is for the person reading the error.
package struct ArchiveFormatError: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }

    /// The archive's error for bytes that are not a property list it can read (same text).
    init(_ error: PropertyListFormatError) { self.description = error.description }
}

/// The records a stored set carries for the places its values live besides it (its replicas: the
/// Settings app's keys, a cloud store), by field (``ArchiveFormat/replicaRecordFields``): each the
/// base its replica last agreed with the set on. Read and written whole by the archive, carried
/// unread by the codec and the object's stored base from a load to the next save, interpreted only
/// by the replica that owns it. A field without a value is not written.
package typealias ReplicaRecords = [String: StoredValue]
