import AppSettingsTesting
import Foundation

@testable import AppSettings

// The invariants, each tagged in its violation:
// - `[set]` the stored set holds the values and versions the rule decides;
// - `[keys]` every shown key holds what the rule decides, and the set records what it was written with;
// - `[object]` every live object holds the values the rule decides, and has unsaved changes exactly
//   when it changed a setting since its last load or save;
// - `[cloud]` this device's local copy of the cloud holds the values and versions the rule sends;
// - `[write]` a step writes the set when the rule changes it, and a clean save writes nothing;
// - `[converge]` once everything is delivered, the cloud, the stored set and the other device
//   show the same value of every synced setting;
// - `[error]` no step throws, and the tool refuses only with nothing stored.

extension ReplicaScheduleRun {
    /// Compares every replica with the model.
    func check(_ label: String) {
        let (data, found) = observe()
        checkSet(data, at: label)
        for setting in ReplicaSetting.shownSettings {
            let key = found[shownKey(setting)]
            if (key as? String) != model.keys[setting] || (key != nil && !(key is String)) {
                violations.append(
                    "[keys] \(label): the key of \(setting) holds \(key.map { "\($0)" } ?? "nothing"), "
                        + "expected \(model.keys[setting] ?? "nothing")")
            }
        }
        for (index, (object, expected)) in zip(objects, model.objects).enumerated() {
            for setting in ReplicaSetting.allCases where object[setting] != expected.values[setting] {
                violations.append(
                    "[object] \(label): object \(index) holds \(setting) = \(object[setting]), expected "
                        + (expected.values[setting] ?? "?"))
            }
            if object.hasUnsavedChanges != expected.hasUnsavedChanges {
                violations.append(
                    "[object] \(label): object \(index) has\(object.hasUnsavedChanges ? "" : " no") unsaved changes, "
                        + "expected \(expected.hasUnsavedChanges ? "its changes to \(expected.changed.map(\.description).sorted())" : "none")"
                )
            }
        }
        for setting in ReplicaSetting.syncedSettings {
            let held = device.object(forKey: cloudKey(setting)).flatMap(CloudEnvelope.init(propertyListValue:))
            let expected = model.cloud[setting]
            guard held.map(Self.stamp(of:)) != expected.map({ "\($0)" }) else { continue }
            violations.append(
                "[cloud] \(label): this device's copy of the cloud holds \(setting) = "
                    + "\(held.map(Self.stamp(of:)) ?? "nothing"), expected \(expected.map { "\($0)" } ?? "nothing")")
        }
    }

    private func checkSet(_ data: Data?, at label: String) {
        guard let expected = model.set else {
            if data != nil { violations.append("[set] \(label): a set is stored, expected none") }
            return
        }
        guard let data else {
            violations.append("[set] \(label): nothing is stored")
            return
        }
        let stored: SettingsCodec.StoredSet
        do {
            stored = try SettingsCodec.readStoredSet(data)
        } catch {
            violations.append("[set] \(label): the stored set cannot be read: \(error)")
            return
        }
        for setting in ReplicaSetting.allCases {
            let value = stored.values["\(setting)"].map(Self.text(of:))
            if value != expected.values[setting] {
                violations.append(
                    "[set] \(label): the set holds \(setting) = \(value ?? "nothing"), expected \(expected.values[setting] ?? "?")"
                )
            }
        }
        var record: [String: StoredValue] = [:]
        if case .dictionary(let entries)? = stored.records[ArchiveFormat.shownBaseField] { record = entries }
        for setting in ReplicaSetting.shownSettings {
            let value = record["\(setting)"].map(Self.text(of:))
            if value != expected.shownRecord[setting] {
                violations.append(
                    "[keys] \(label): the set records the key of \(setting) as written with \(value ?? "nothing"), "
                        + "expected \(expected.shownRecord[setting] ?? "nothing")")
            }
        }
        let versions = CloudRecord.decoded(from: stored.records)?.stamps ?? [:]
        for setting in ReplicaSetting.syncedSettings {
            let version = versions["\(setting)"]
            let wanted = expected.stamps[setting]
            let matches =
                version?.counter == wanted.map { Int64($0.counter) }
                && version?.tag == wanted.map { Optional(StoredValue.string($0.value)).tag }
            guard !matches && (version != nil || wanted != nil) else { continue }
            violations.append(
                "[set] \(label): the set's version of \(setting) is "
                    + "\(version.map { "\($0.counter) (tag \($0.tag))" } ?? "none"), expected \(wanted.map { "\($0)" } ?? "none")"
            )
        }
    }

    /// Once everything is delivered: the cloud, the stored set and the other device agree.
    func checkConvergence() {
        let server = cloud.serverValues(of: cloud.firstAccount)
        let set = observe().set.flatMap { try? SettingsCodec.readStoredSet($0) }
        for setting in ReplicaSetting.syncedSettings {
            let held = server[cloudKey(setting)].flatMap(CloudEnvelope.init(propertyListValue:))
            let cloudValue = held?.value.map(Self.text(of:)) ?? ReplicaSetting.developerDefault
            let stored = set?.values["\(setting)"].map(Self.text(of:)) ?? ReplicaSetting.developerDefault
            let expected = model.cloud[setting]
            if held.map(Self.stamp(of:)) != expected.map({ "\($0)" }) {
                violations.append(
                    "[cloud] at the end: the cloud holds \(setting) = \(held.map(Self.stamp(of:)) ?? "nothing"), "
                        + "expected \(expected.map { "\($0)" } ?? "nothing")")
            }
            if cloudValue != stored || other[setting] != cloudValue {
                violations.append(
                    "[converge] at the end: \(setting) is \(cloudValue) in the cloud, \(stored) in the set, "
                        + "\(other[setting]) on the other device")
            }
        }
    }

    /// A stored string as text (anything else described).
    static func text(of value: StoredValue) -> String {
        if case .string(let text) = value { return text }
        return "\(value)"
    }

    /// A cloud envelope as the model writes a version: `value@counter`.
    static func stamp(of envelope: CloudEnvelope) -> String {
        "\(envelope.value.map(text(of:)) ?? "nil")@\(envelope.stamp.counter)"
    }
}
