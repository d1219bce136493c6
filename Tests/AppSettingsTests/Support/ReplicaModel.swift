import Foundation

/// The settings of the replica schedules, one of each kind a replica touches: shown in the
/// Settings app, synced, both, and neither. Every value written is a string naming its write.
enum ReplicaSetting: Int, CaseIterable, CustomStringConvertible {
    case shown, synced, both, plain

    var isShown: Bool { self == .shown || self == .both }
    var syncs: Bool { self == .synced || self == .both }
    var description: String { "\(ReplicaSetting.names[rawValue])" }
    static let names = ["shown", "synced", "both", "plain"]
    static let shownSettings = allCases.filter(\.isShown)
    static let syncedSettings = allCases.filter(\.syncs)
    static let developerDefault = "default"
}

/// A model of the rule table of Storage and Data Safety, "Where a value comes from", written from
/// the documentation alone (it calls nothing of the library): what each replica of each setting
/// holds, and how every operation of the schedules changes it.
///
/// The rule, as the model applies it to every write of the set (a save, a pull, the tool's edit):
/// - a setting this object changed since its last load or save (a save): this object's value;
/// - else a replica's change since its base: a Settings app key that differs from what the set's
///   record says it was written with (an edit seen now), over an iCloud value whose version
///   outranks the stored set's;
/// - else the stored set's value (a pull after a removal: the developer default; a save after a
///   removal: the object's value, "a removed set is written as the object holds it");
/// then every replica is written from the one result: the set, every shown key and the record of
/// what it was written with, and the synced values whose version is newer than the cloud's.
///
/// Versions (SyncingAcrossDevices, "One key per setting, and a version per value"): a change
/// saved here takes the counter one above every counter seen for the setting (the set's record,
/// and the store's local copy when the object syncs); a value stored without a version and not
/// the developer default counts as version 0; a version with the greater counter wins, and two of
/// one counter are ordered by a hash of their values, which the model leaves open (``Tie``).
struct ReplicaModel {
    /// One synced value's version: its counter, and its value (the hash of which is its tag).
    struct Stamp: Equatable, CustomStringConvertible {
        var counter: Int
        var value: String
        var description: String { "\(value)@\(counter)" }
    }

    /// The stored set: its values, the record of what each shown key was written with, and the
    /// version of each synced value.
    struct StoredSet: Equatable {
        var values: [ReplicaSetting: String]
        var shownRecord: [ReplicaSetting: String]
        var stamps: [ReplicaSetting: Stamp]
    }

    /// One live object: its values, what it changed since its last load or save (its unsaved
    /// changes), the set as it last loaded or wrote it (its base), and the shown keys' values it
    /// saw since then.
    struct Object {
        var values: [ReplicaSetting: String]
        var changed: Set<ReplicaSetting> = []
        var base: StoredSet?
        var seen: [ReplicaSetting: String] = [:]
        var syncs: Bool

        var hasUnsavedChanges: Bool { !changed.isEmpty }
    }

    /// Two versions of one counter and different values meet: the documentation orders them by a
    /// hash of the values, which the model does not compute, so the step that makes them is not run.
    struct Tie: Error, CustomStringConvertible {
        var setting: ReplicaSetting
        var stamps: (Stamp, Stamp)
        var description: String { "\(setting): \(stamps.0) and \(stamps.1) would tie" }
    }

    /// What a reconciliation decided, before it is known whether the library wrote.
    struct Reconciled {
        var set: StoredSet
        var sent: [ReplicaSetting: Stamp]
        /// Whether the rule needs a write: the set, a shown key or a version changes, or a
        /// value is sent. (The library may write more often: a record field the model does not
        /// follow, such as the account.)
        var mustWrite: Bool
    }

    static let defaults = Dictionary(
        uniqueKeysWithValues: ReplicaSetting.allCases.map { ($0, ReplicaSetting.developerDefault) })

    /// The stored set (`nil`: nothing stored).
    var set: StoredSet?
    /// What each shown key holds (missing: nothing).
    var keys: [ReplicaSetting: String] = [:]
    /// This device's local copy of the cloud: what it holds for each synced setting.
    var cloud: [ReplicaSetting: Stamp] = [:]
    /// Object 0 syncs with this device's store.
    var objects: [Object] = []
    /// Whether a change notice waits for this device.
    var noticePending = false

    // MARK: - Objects

    /// A new object (or `resetToUserDefaults()`): what is stored, then what the Settings app
    /// changed since its keys were written, taken as assignments made now.
    static func loaded(from set: StoredSet?, keys: [ReplicaSetting: String], syncs: Bool) -> Object {
        var object = Object(values: set?.values ?? defaults, base: set, syncs: syncs)
        look(into: &object, set: set, keys: keys)
        return object
    }

    mutating func assign(_ value: String, to setting: ReplicaSetting, of index: Int) {
        objects[index].values[setting] = value
        objects[index].changed.insert(setting)
    }

    /// A look at the shown keys (a load, a save's start, a suite notice, the foreground): each key
    /// that differs from what the set's record says it was written with (with no set stored, from
    /// the object's base), and was not seen before, is taken as an assignment.
    mutating func look(_ index: Int) {
        Self.look(into: &objects[index], set: set, keys: keys)
    }

    private static func look(into object: inout Object, set: StoredSet?, keys: [ReplicaSetting: String]) {
        for setting in ReplicaSetting.shownSettings {
            guard let found = keys[setting] else { continue }
            let written = set.map { $0.shownRecord[setting] ?? $0.values[setting] } ?? object.base?.shownRecord[setting]
            guard found != written, found != object.seen[setting] else { continue }
            object.seen[setting] = found
            if object.values[setting] != found {
                object.values[setting] = found
                object.changed.insert(setting)
            }
        }
    }

    // MARK: - The rule

    /// The Settings app's edits a write reads under the lock: each key that differs from what the
    /// stored set's record says it was written with (with no set stored, every key there is).
    func settingsAppEdits() -> [ReplicaSetting: String] {
        var edits: [ReplicaSetting: String] = [:]
        for setting in ReplicaSetting.shownSettings {
            guard let found = keys[setting] else { continue }
            if let set, found == (set.shownRecord[setting] ?? set.values[setting]) { continue }
            edits[setting] = found
        }
        return edits
    }

    /// A write of the set by object `index`: its save (`save`: its unsaved changes win) or, for
    /// the syncing object, a pull (its unsaved changes stay unsaved and are not written).
    func reconcile(_ index: Int, save: Bool) throws(Tie) -> Reconciled {
        let object = objects[index]
        let edits = settingsAppEdits()
        // The versions judged against: the stored set's; with no set, a save's own base's.
        var stamps = set?.stamps ?? (save ? object.base?.stamps ?? [:] : [:])
        var fromCloud: [ReplicaSetting: String] = [:]
        if object.syncs {
            for setting in ReplicaSetting.syncedSettings {
                var mine = stamps[setting]
                let stored = set?.values[setting] ?? ReplicaSetting.developerDefault
                if mine == nil && stored != ReplicaSetting.developerDefault {
                    mine = Stamp(counter: 0, value: stored)
                    stamps[setting] = mine
                }
                guard let theirs = cloud[setting], theirs != mine else { continue }
                if let mine, theirs.counter == mine.counter { throw Tie(setting: setting, stamps: (mine, theirs)) }
                if mine.map({ theirs.counter > $0.counter }) ?? true {
                    stamps[setting] = theirs
                    fromCloud[setting] = theirs.value
                }
            }
        }
        var written: [ReplicaSetting: String] = [:]
        var changedHere: Set<ReplicaSetting> = []
        for setting in ReplicaSetting.allCases {
            if save && object.changed.contains(setting) {
                written[setting] = object.values[setting]
                changedHere.insert(setting)
            } else if let edit = edits[setting] {
                written[setting] = edit
                changedHere.insert(setting)
            } else if let value = fromCloud[setting] {
                written[setting] = value
            } else if let set {
                written[setting] = set.values[setting]
            } else {
                written[setting] = save ? object.values[setting] : ReplicaSetting.developerDefault
            }
        }
        // Each change made here takes a version above every one seen for it.
        for setting in ReplicaSetting.syncedSettings where changedHere.contains(setting) {
            let seen = [stamps[setting]?.counter, object.syncs ? cloud[setting]?.counter : nil].compactMap { $0 }
            stamps[setting] = Stamp(counter: (seen.max() ?? 0) + 1, value: written[setting]!)
        }
        var sent: [ReplicaSetting: Stamp] = [:]
        if object.syncs {
            for (setting, stamp) in stamps where cloud[setting].map({ stamp.counter > $0.counter }) ?? true {
                sent[setting] = stamp
            }
        }
        let record = written.filter { $0.key.isShown }
        let newSet = StoredSet(values: written, shownRecord: record, stamps: stamps)
        return Reconciled(set: newSet, sent: sent, mustWrite: newSet != set || keys != record || !sent.isEmpty)
    }

    /// Takes what `reconciled` decided, when the library wrote (`wrote`): the set, the keys and
    /// the cloud's local copy; the object holds the written set for every setting it did not
    /// change, its base is the new set, and it saw nothing since.
    mutating func take(_ reconciled: Reconciled, by index: Int, save: Bool, wrote: Bool) {
        guard wrote else { return }
        set = reconciled.set
        keys = reconciled.set.shownRecord
        cloud.merge(reconciled.sent) { $1 }
        var object = objects[index]
        if save { object.changed = [] }
        for setting in ReplicaSetting.allCases where !object.changed.contains(setting) {
            object.values[setting] = reconciled.set.values[setting]
        }
        object.base = reconciled.set
        object.seen = [:]
        objects[index] = object
    }

    // MARK: - The tool

    /// `appsettings set`: under the lock, what the Settings app changed is taken first, then the
    /// edit; every shown key and its record written; a synced setting it changes versioned as a
    /// save that does not sync versions it (one above the set's record; a value without a version
    /// stays without one). `nil`: nothing is stored, the tool refuses.
    func toolSet(_ value: String, for setting: ReplicaSetting) -> StoredSet? {
        guard var edited = set else { return nil }
        for (shown, edit) in settingsAppEdits() { edited.values[shown] = edit }
        edited.values[setting] = value
        for synced in ReplicaSetting.syncedSettings where edited.values[synced] != set?.values[synced] {
            guard let stamp = edited.stamps[synced] else { continue }
            edited.stamps[synced] = Stamp(counter: stamp.counter + 1, value: edited.values[synced]!)
        }
        edited.shownRecord = edited.values.filter { $0.key.isShown }
        return edited
    }

    // MARK: - Versions that would tie

    /// Every version the model knows of, by setting: the set's, the cloud's, the objects' bases'.
    /// Two of one counter with different values would be ordered by the hash the model leaves open.
    func tie() -> Tie? {
        for setting in ReplicaSetting.syncedSettings {
            let stamps = ([set?.stamps[setting], cloud[setting]] + objects.map { $0.base?.stamps[setting] })
                .compactMap { $0 }
            for (offset, stamp) in stamps.enumerated() {
                if let other = stamps[(offset + 1)...].first(where: {
                    $0.counter == stamp.counter && $0.value != stamp.value
                }) {
                    return Tie(setting: setting, stamps: (stamp, other))
                }
            }
        }
        return nil
    }
}
