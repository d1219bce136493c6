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
        /// Whether a key is missing or stale: the next save writes the keys.
        var stale: Bool
    }

    /// The shown keys as a replica judges them (``ShownKeys``).
    var shownKeys: ShownKeys {
        ShownKeys(keys: shownSlots.map { ShownKeys.Key(name: $0.slot.name, key: $0.key, control: $0.control) })
    }

    /// Reads the shown keys with the set they were written with, outside the object's lock:
    /// `nil` when there is nothing new and no key to write, or nothing to look at (no shown setting, a nested object, a store that
    /// cannot be read now). A key is an edit only where it differs from what that set's record
    /// says it was written with (``ShownKeys``): another writer's save is never one.
    func look(refresh: Bool) -> Look? {
        guard showsAny, object.announcer.parent == nil, !object.binding.key.hasEmptyPostfix else {
            return nil
        }
        let shown = shownKeys
        let (seen, generation, changeGeneration) = _state.withLock {
            ($0.settingsApp.seen, $0.settingsApp.generation, $0.ledger.changes.generation)
        }
        let found: (set: Data?, objects: [String: Any])
        do {
            found = try store.look(atKeys: shown.keys.map(\.key), refresh: refresh)
        } catch {
            // The set's own read reports an unavailable store; the keys are looked at again later.
            return nil
        }
        let base = ledger.storedBase
        var record = base.records[ArchiveFormat.shownBaseField]
        var setValues = found.set == nil ? nil : base.values
        if let bytes = found.set, bytes != base.data, !ReplicaMutation.isActive(.keysAgainstBase) {
            // Another writer stored the set since: its keys were written with its record. (A set
            // that cannot be read has none: what its keys hold is taken, as the load does.)
            do {
                let set = try SettingsCodec.readStoredSet(bytes)
                (record, setValues) = (set.records[ArchiveFormat.shownBaseField], set.values)
            } catch {
                (record, setValues) = (nil, nil)
            }
        }
        var look = Look(
            generation: generation, changeGeneration: changeGeneration, newlySeen: [:], taken: [], ignored: [],
            stale: false)
        let slots = self.slots
        for (key, state) in shown.judge(found.objects, record: record, setValues: setValues) {
            guard case .edited(let asFound, let stored) = state else {
                if case .unchanged(current: false) = state { look.stale = true }
                continue
            }
            guard let slot = slots.first(where: { $0.name == key.name }),
                asFound != seen[key.name] || ReplicaMutation.isActive(.seenTakenAgain)
            else { continue }
            look.newlySeen[key.name] = asFound
            do {
                look.taken.append((slot, try slot.decode(try stored.get()).value))
            } catch {
                look.ignored.append(
                    IgnoredSettingsAppValue(
                        setting: key.name, key: key.key, value: JSONForm.description(of: asFound), reason: "\(error)"))
            }
        }
        return look.newlySeen.isEmpty && !look.stale ? nil : look
    }

    /// Applies `look` under the object's lock and announces what changed; `false`, changing
    /// nothing, when another look, a load or a save changed what was seen since it began, or a
    /// setting it would take was assigned since (the assignment may have come after the look read
    /// the key: the next look, which reads after it, decides).
    func apply(_ look: Look) -> Bool {
        let changed = _state.withLock { state -> [Int]? in
            if look.stale { state.settingsApp.markNeedsWriting() }
            guard !look.newlySeen.isEmpty else { return [] }
            guard state.settingsApp.generation == look.generation,
                !look.taken.contains(where: {
                    state.ledger.changes.changed($0.slot.index, since: look.changeGeneration)
                })
            else { return nil }
            state.settingsApp.see(look.newlySeen, ignoring: look.ignored)
            var changed: [Int] = []
            for (slot, value) in look.taken where slot.assign(value) { changed.append(slot.index) }
            state.ledger.recordChange(of: changed)
            return changed
        }
        guard let changed else { return false }
        if isPublished { object.announcer.announce(changed) }
        return true
    }

    /// What the object saw of the keys (as found) since the last write.
    var seen: [String: StoredValue] {
        _state.withLock { $0.settingsApp.seen }
    }

    /// Whether a key is missing or stale, so that the next save writes them.
    var needsWriting: Bool {
        _state.withLock { $0.settingsApp.needsWriting }
    }

    /// After a reconciliation: the keys hold what was written (when it wrote), and what it could
    /// not take is listed (once).
    func didReconcile(wrote: Bool, ignoring ignored: [IgnoredSettingsAppValue]) {
        _state.withLock { state in
            if wrote { state.settingsApp.forgetSeen() }
            state.settingsApp.ignore(ignored)
        }
    }

    /// The suite changed (another process wrote it): what the Settings app wrote is taken.
    func suiteDidChange() {
        takeWrittenValues(refresh: true)
    }
}

extension SettingsAppBridge {
    /// Whether the Settings app's values can be edited inside this process, told by its own
    /// `UserDefaults.didChangeNotification`: on Apple platforms, a Mac Catalyst app's settings
    /// window. Linux has no Settings app, and corelibs posts no such notice.
    static let editsInProcess: Bool = {
        #if os(Linux) && !APPLE_STAND_INS
            false
        #else
            true
        #endif
    }()
}
