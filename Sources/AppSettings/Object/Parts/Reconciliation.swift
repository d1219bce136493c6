import Foundation

/// A place besides the stored set where a setting's value lives (`AppSettingsObject+Replicas.swift`
/// lists them): a replica, with the base it last agreed with the set on, kept in the set's archive as
/// its record (``ReplicaRecords``). Each takes part in every reconciliation of its object at the
/// same points, so that the save and the load name none of them:
///
/// 0. ``loaded()``, after a load: what it changed since its base, taken as assignments made now;
/// 1. ``prepare(_:)``, before the locks (a look at what it holds, for a save);
/// 2. ``read(_:from:)``, under the object's synchronization and the domain's exclusive lock, once
///    the stored set was read: what it changed since its base, proposed setting by setting;
/// 3. ``write(_:into:)``, once the values are decided, still under the locks: its record, the
///    entries it writes beside the set, its own writes, and whether it needs the set written;
/// 4. ``finish(_:)``, after the write, with no lock held: what it reports.
///
/// One instance serves one reconciliation (a replica keeps what its read found for its write).
protocol SettingsReplica: AnyObject {
    /// The field of its record in the set's archive (``ArchiveFormat/replicaRecordFields``).
    var recordField: String { get }
    /// Whether a save must write although no setting changed (its keys are missing or stale).
    var needsWriting: Bool { get }
    /// The keys it writes beside the set, removed with it.
    var entryKeys: [String] { get }
    func prepare(_ writing: Reconciliation.Writing) throws
    /// After a load into its object (still unpublished, or a scratch copy): what it changed since
    /// its base is taken as assignments made now.
    func loaded()
    func read(_ reconciliation: inout Reconciliation, from domain: SettingsStore.LockedRead) throws
    func write(_ decided: Reconciliation.Decided, into write: inout Reconciliation.ReplicaWrite)
    func finish(_ finished: Reconciliation.Finished)
    /// The set (and ``entryKeys``) were removed.
    func setWasRemoved()
}

/// One reconciliation: the value of every setting a write decides, from this object's snapshot,
/// the stored set as read under the domain's lock, and what each replica changed since its base.
/// The rule, the same at every save, pull and look that writes (the table is in
/// <doc:StorageAndDataSafety>, "Where a value comes from"):
///
/// | This object changed it (a save) | A replica changed it since its base | The stored set changed it | Written |
/// | --- | --- | --- | --- |
/// | yes | any | any | this object's value |
/// | no | yes | any | the newest replica change: an edit seen now, else a value that outranks the stored set by version |
/// | no | no | yes | the stored set's |
/// | no | no | no | as it is |
///
/// An edit seen now counts as made when it is first seen: an object that looks before it saves
/// takes it then as an assignment of its own. Every replica is written from the one result.
struct Reconciliation {
    /// What a reconciliation writes of its object.
    enum Writing {
        /// Its unsaved changes (a save).
        case unsavedChanges
        /// Only what is stored, with what the replicas changed (a pull): its unsaved changes stay
        /// unsaved.
        case storedState
    }

    /// Where a replica's proposal stands when two replicas changed a setting.
    enum Order: Int, Comparable {
        /// Newer than the stored set's value by its version.
        case outranksStoredSet
        /// An edit seen now for the first time: newer than anything stored.
        case seenNow

        static func < (lhs: Order, rhs: Order) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What a replica proposes for one setting.
    struct Proposal {
        var value: StoredValue
        var order: Order
        /// A change made on this device (an edit), not one that came from another device: the
        /// replicas that version changes stamp it.
        var madeHere: Bool
        /// The replica that proposed it (its record field).
        var replica: String
    }

    let writing: Writing
    let snapshot: Snapshot
    /// What the key holds now, read under the domain's lock.
    let stored: PreferencesValue?
    /// The stored set's values, when it is a set this object can read (the base's when nobody
    /// else wrote since), and its records: what each replica judges its own changes against.
    let storedValues: [String: StoredValue]?
    let storedRecords: ReplicaRecords
    /// The stored set as the codec read it, when another writer stored it since the base.
    let storedSettings: SettingsCodec.StoredSettings?
    /// The replicas' proposals, by stored name: the newest of each setting.
    private(set) var proposals: [String: Proposal] = [:]

    init(
        _ writing: Writing, snapshot: Snapshot, stored: PreferencesValue?, read: (Data) -> SettingsCodec.StoredSettings
    ) {
        self.writing = writing
        self.snapshot = snapshot
        self.stored = stored
        var storedSettings: SettingsCodec.StoredSettings?
        switch stored {
        case .data(let bytes) where bytes == snapshot.stored.data:
            (storedValues, storedRecords) = (snapshot.stored.values, snapshot.stored.records)
        case .data(let bytes):
            let settings = read(bytes)
            storedSettings = settings
            let readable = settings.error == nil ? settings.entries : nil
            (storedValues, storedRecords) = (readable, readable == nil ? [:] : settings.records)
        case nil, .other:
            (storedValues, storedRecords) = (nil, [:])
        }
        self.storedSettings = storedSettings
    }

    /// Whether nobody else wrote since this object's last load or save.
    var storedIsBase: Bool {
        guard case .data(let bytes)? = stored else { return stored == nil && snapshot.stored.data == nil }
        return bytes == snapshot.stored.data
    }

    /// The schema version the stored set was written with (after a migration, the class's).
    var storedSchemaVersion: Int? {
        storedIsBase ? snapshot.stored.schemaVersion : storedSettings?.schemaVersion
    }

    /// A replica's proposal for the setting `name`; of two, the newer stays.
    mutating func propose(_ proposal: Proposal, for name: String) {
        if let current = proposals[name], current.order >= proposal.order { return }
        proposals[name] = proposal
    }

    /// Where the value written for one setting comes from.
    enum Origin: Equatable {
        case object
        case replica(String)
        case storedSet
    }

    /// The rule, for the setting `name` at `index`: where its written value comes from, or `nil`
    /// when it stays as the object's snapshot holds it. (A pull writes the stored set with the
    /// replicas' changes: this object's unsaved changes are not its to write.)
    func origin(ofSetting name: String, at index: Int) -> Origin? {
        if writing == .unsavedChanges && snapshot.changedSinceBase(index) { return .object }
        if let proposal = proposals[name] { return .replica(proposal.replica) }
        guard let now = storedValues?[name], now != snapshot.stored.values[name] else { return nil }
        return .storedSet
    }

    /// What the replicas write, once the values are decided.
    struct Decided {
        let writing: Writing
        /// The values written, as value trees by stored name (the carried-over unknown ones too).
        let settings: [String: StoredValue]
        /// The records the stored set carried; each replica writes its own anew.
        let storedRecords: ReplicaRecords
        /// The settings whose written value is a change made on this device: this object's
        /// unsaved changes and the local replicas' edits.
        let changedHere: Set<String>
        /// Whether the values written differ from the stored set's (or nothing readable was stored).
        let changesStoredSet: Bool
        /// The proposals taken, by stored name.
        let taken: [String: Proposal]
    }

    /// What a replica adds to the write.
    struct ReplicaWrite {
        /// The records written with the set (each replica sets its own field).
        var records: ReplicaRecords
        /// Values written beside the set, by key.
        var entries: [String: Any] = [:]
        /// Its writes of its own, made under the lock just before the set's.
        var beforeWriting: [() -> Void] = []
        /// Whether this replica needs the set written (a pull writes only then).
        var needsWrite = false
    }

    /// What a finished reconciliation tells its replicas.
    struct Finished {
        /// Whether the set was written.
        var wrote: Bool
        /// Proposals that a setting's conversion, `validate:` or checks refused, by stored name.
        var refused: [String: SettingProblem]
    }
}
