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
    ///
    /// The keys are read outside the object's lock (``look(refresh:)``); what was found is applied
    /// only when nothing else looked meanwhile (``apply(_:)``), or the look starts again: a value
    /// read before a reset, a load or a save took it must not land after the assignment that
    /// followed them.
    func takeWrittenValues(refresh: Bool) {
        // A setting assigned on another thread at every try could keep a look from landing: after
        // a few tries the values are left for the next look (the next save, load or notice).
        for _ in 0..<Self.tries {
            guard let look = look(refresh: refresh), !apply(look) else { return }
        }
    }

    /// How many times ``takeWrittenValues(refresh:)`` looks again when something came between.
    static let tries = 8

    /// What one look at the shown keys found, and what it would do.
    struct Look {
        /// ``SettingsAppState/generation`` when the look began.
        var generation: UInt64
        /// The count of the object's changes when the look began: a setting it would take that
        /// was assigned since may have been assigned after the look read its key.
        var changeGeneration: UInt64
        var newlySeen: [String: StoredValue]
        var taken: [(slot: AnySettingSlot, value: Any)]
        var ignored: [IgnoredSettingsAppValue]
    }

    /// Reads the shown keys, outside the object's lock: `nil` when there is nothing new (or
    /// nothing to look at: no shown setting, a nested object, a store that cannot be read now).
    func look(refresh: Bool) -> Look? {
        guard showsAny, object.announcer.parent == nil, !object.binding.key.hasEmptyPostfix else {
            return nil
        }
        let shown = shownSlots
        let (seen, generation, changeGeneration) = _state.withLock {
            ($0.settingsApp.seen, $0.settingsApp.generation, SettingsLedger.changeGeneration(in: $0))
        }
        let found: [String: Any]
        do {
            found = try store.storedObjects(forKeys: shown.map(\.key), refresh: refresh)
        } catch {
            // The set's own read reports an unavailable store; the keys are looked at again later.
            return nil
        }
        let base = ledger.storedBase.values
        var look = Look(
            generation: generation, changeGeneration: changeGeneration, newlySeen: [:], taken: [], ignored: [])
        for (slot, key, control) in shown {
            guard let written = found[key] else { continue }
            let asFound = StoredValue(propertyListValue: written) ?? .string(String(describing: written))
            guard asFound != seen[slot.name] else { continue }
            look.newlySeen[slot.name] = asFound
            do {
                let stored = try control.storedValue(fromSettingsApp: written)
                // What the set holds already (the keys hold what the last save wrote).
                guard stored != base[slot.name] else { continue }
                look.taken.append((slot, try slot.decode(stored).value))
            } catch {
                look.ignored.append(
                    IgnoredSettingsAppValue(
                        setting: slot.name, key: key, value: JSONForm.description(of: asFound),
                        reason: "\(error)"))
            }
        }
        return look.newlySeen.isEmpty ? nil : look
    }

    /// Applies `look` under the object's lock and announces what changed; `false`, changing
    /// nothing, when another look, a load or a save changed what was seen since it began, or a
    /// setting it would take was assigned since (the assignment may have come after the look read
    /// the key: the next look, which reads after it, decides).
    func apply(_ look: Look) -> Bool {
        let changed = _state.withLock { state -> [Int]? in
            guard state.settingsApp.generation == look.generation,
                !look.taken.contains(where: {
                    SettingsLedger.changed($0.slot.index, since: look.changeGeneration, in: state)
                })
            else { return nil }
            state.settingsApp.see(look.newlySeen, ignoring: look.ignored)
            var changed: [Int] = []
            for (slot, value) in look.taken where slot.assign(value) { changed.append(slot.index) }
            SettingsLedger.recordChange(of: changed, in: &state)
            return changed
        }
        guard let changed else { return false }
        if isPublished { object.announcer.announce(changed) }
        return true
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
        _state.withLock { $0.settingsApp.forgetSeen() }
    }
}
