import Foundation

/// The Settings app part of an object: what the Settings app wrote under the shown keys, taken at
/// a load, a save, a suite change and the return to the foreground; the shown values a save writes
/// (`ObjectState.settingsApp`, `Object/Parts/SettingsAppState`).
struct SettingsAppBridge: ObjectPart {
    let object: AppSettingsObject

    /// What the last load or foreground check could not take of the Settings app's values.
    var ignoredValues: [IgnoredSettingsAppValue] {
        _state.withLock { $0.settingsApp.ignored }
    }

    /// The settings this object shows in the Settings app, with their keys and controls.
    var shownSlots: [(slot: AnySettingSlot, key: String, control: SettingsAppControl)] {
        slots.compactMap { slot in
            guard !slot.isConstant, slot.nestedObject == nil, let entry = slot.settingsAppEntry,
                let control = SettingsAppControl(node: slot.schemaNode, range: slot.rules.range, entry: entry)
            else { return nil }
            return (slot, settingsKey.settingsAppKey(of: slot.name), control)
        }
    }

    /// Whether the class declares a setting with `inSettingsApp: true`.
    var showsAny: Bool {
        slots.contains { $0.rules.settingsApp != nil }
    }

    /// Takes what the Settings app wrote under the shown keys since this object last looked,
    /// each value through its setting's conversion, `in:`, choices and `validate:` like an
    /// assignment (a change, unsaved until the next save); a value that does not fit is listed in
    /// ``ignoredSettingsAppValues``. A published object announces what changed.
    func takeWrittenValues(refresh: Bool) {
        guard showsAny, object.announcer.parent == nil, !object.binding.key.hasEmptyPostfix else {
            return
        }
        let shown = shownSlots
        let found: [String: Any]
        do {
            found = try store.storedObjects(forKeys: shown.map(\.key), refresh: refresh)
        } catch {
            // The set's own read reports an unavailable store; the keys are looked at again later.
            return
        }
        let base = ledger.storedBase.values
        let seen = _state.withLock { $0.settingsApp.seen }
        var newlySeen: [String: StoredValue] = [:]
        var taken: [(slot: AnySettingSlot, value: Any)] = []
        var ignored: [IgnoredSettingsAppValue] = []
        for (slot, key, control) in shown {
            guard let written = found[key] else { continue }
            let asFound = StoredValue(propertyListValue: written) ?? .string(String(describing: written))
            guard asFound != seen[slot.name] else { continue }
            newlySeen[slot.name] = asFound
            do {
                let stored = try control.storedValue(fromSettingsApp: written)
                // What the set holds already (the keys hold what the last save wrote).
                guard stored != base[slot.name] else { continue }
                taken.append((slot, try slot.decode(stored).value))
            } catch {
                ignored.append(
                    IgnoredSettingsAppValue(
                        setting: slot.name, key: key, value: JSONForm.description(of: asFound),
                        reason: "\(error)"))
            }
        }
        guard !newlySeen.isEmpty else { return }
        let changed = _state.withLock { state -> [Int] in
            state.settingsApp.seen.merge(newlySeen) { $1 }
            state.settingsApp.ignored += ignored
            var changed: [Int] = []
            for (slot, value) in taken where slot.assign(value) { changed.append(slot.index) }
            SettingsLedger.recordChange(of: changed, in: &state)
            return changed
        }
        if isPublished { object.announcer.announce(changed) }
    }

    /// The suite changed (another process wrote it): what the Settings app wrote is taken.
    func suiteDidChange() {
        takeWrittenValues(refresh: true)
    }

    /// `write` with the values of the shown settings it stores, each under its key.
    func showingValues(
        _ write: SettingsStore.Write<SettingsLedger.WriteDecision>
    ) -> SettingsStore.Write<SettingsLedger.WriteDecision> {
        guard showsAny else { return write }
        var write = write
        for (slot, key, control) in shownSlots {
            guard let stored = write.decision.settings[slot.name],
                let value = control.settingsAppValue(of: stored.jsonForm)
            else { continue }
            write.shownValues[key] = value
        }
        return write
    }

    /// After a save: the shown keys hold what was written.
    func didSave() {
        guard showsAny else { return }
        _state.withLock { $0.settingsApp.seen = [:] }
    }
}
