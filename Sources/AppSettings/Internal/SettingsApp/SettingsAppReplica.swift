import Foundation

/// The Settings app's keys as a replica of an object's settings (``SettingsReplica``): what the
/// user changed there since the keys were written is proposed as an edit seen now; every write
/// writes every key, and the record of what it wrote (`$shownBase`), from the one result.
final class SettingsAppReplica: SettingsReplica {
    private let object: AppSettingsObject
    private let shown: ShownKeys
    /// What the keys held under the lock.
    private var found: [String: Any] = [:]
    private var ignored: [IgnoredSettingsAppValue] = []

    init(object: AppSettingsObject) {
        self.object = object
        shown = object.settingsApp.shownKeys
    }

    var recordField: String { ArchiveFormat.shownBaseField }
    var entryKeys: [String] { shown.keys.map(\.key) }
    var needsWriting: Bool { object.settingsApp.needsWriting }

    /// Before a save: what the Settings app wrote is taken first, as an assignment made now (an
    /// assignment after it is later, one before it earlier).
    func prepare(_ writing: Reconciliation.Writing) {
        if writing == .unsavedChanges { object.settingsApp.takeWrittenValues(refresh: true) }
    }

    func loaded() {
        object.settingsApp.takeWrittenValues(refresh: false)
    }

    func read(_ reconciliation: inout Reconciliation, from domain: SettingsStore.LockedRead) {
        found = domain.objects(forKeys: entryKeys)
        let judged = shown.judge(
            found, record: reconciliation.storedRecords[recordField], setValues: reconciliation.storedValues)
        for (key, state) in judged {
            guard case .edited(let asFound, let stored) = state,
                let slot = object.slots.first(where: { $0.name == key.name })
            else { continue }
            do {
                let value = try stored.get()
                _ = try slot.decode(value)
                reconciliation.propose(
                    Reconciliation.Proposal(value: value, order: .seenNow, madeHere: true, replica: recordField),
                    for: key.name)
            } catch {
                ignored.append(
                    IgnoredSettingsAppValue(
                        setting: key.name, key: key.key, value: JSONForm.description(of: asFound), reason: "\(error)"))
            }
        }
    }

    func write(_ decided: Reconciliation.Decided, into write: inout Reconciliation.ReplicaWrite) {
        let (entries, record) = shown.written(decided.settings, over: decided.storedRecords[recordField])
        write.records[recordField] = record
        write.entries.merge(entries) { $1 }
        if !ShownKeys.hold(entries, in: found) { write.needsWrite = true }
    }

    func finish(_ finished: Reconciliation.Finished) {
        for (name, problem) in finished.refused {
            guard let key = shown.keys.first(where: { $0.name == name }), let value = found[key.key] else { continue }
            let asFound = StoredValue(propertyListValue: value) ?? .string(String(describing: value))
            ignored.append(
                IgnoredSettingsAppValue(
                    setting: name, key: key.key, value: JSONForm.description(of: asFound), reason: problem.reason))
        }
        object.settingsApp.didReconcile(wrote: finished.wrote, ignoring: ignored)
    }

    func setWasRemoved() {
        object.settingsApp.didReconcile(wrote: true, ignoring: [])
    }
}
