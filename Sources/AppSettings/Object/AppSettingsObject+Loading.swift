import Foundation

// The load path: store (Internal/Store) → keyed-archive reader (validates every byte) → stored
// values → schema migration → per-setting conversion and `validate` → `checkAfterDecode()`.

extension AppSettingsObject {
    /// Throws away unsaved changes and reloads what is stored, re-reading it from disk first so
    /// that what another process synchronized is seen.
    ///
    /// Settings absent from the stored set get their developer defaults; then
    /// ``checkAfterDecode()`` runs. The new values replace the old ones in one step, and
    /// observers get one notification naming every setting that changed.
    ///
    /// - Throws: ``AppSettingsError`` when what is stored could not be used entirely. The settings
    ///   that could be read are loaded anyway, the others keep their developer defaults, and the
    ///   stored bytes stay untouched (see ``lastLoadError``).
    public final func resetToUserDefaults() throws {
        if let parent = announcer.parent {
            try parent.resetToUserDefaults()
            return
        }
        try HeldLocks.call("resetToUserDefaults()") { [self] in try ledger.revertToStoredSet() }
    }
}

extension SettingsLedger {
    /// Reloads what is stored into a scratch copy and takes it in one step; managed configuration
    /// is read again too (on Linux nothing else tells when it changed).
    func revertToStoredSet() throws {
        let error = replaceValues(as: .storedState) { scratch in
            scratch.resetToDeveloperDefaults()
            defer { for replica in scratch.ledger.replicas() { replica.loaded() } }
            return scratch.ledger.loadStoredState(refresh: true)
        }
        overrides.refreshManagedConfiguration()
        if let error { throw error }
    }

    /// Throws the reason this object's class or key cannot be stored at all.
    func checkStorable() throws {
        if let error = object.binding.layout.error { throw error }
        SettingsIsolationScope.checkUse(of: object)
        guard !settingsKey.hasEmptyPostfix else {
            throw AppSettingsError.emptyKeyPostfix(settingsClass: String(describing: type(of: object)))
        }
        try StoreNames.check(key: userDefaultsKey)
    }

    /// Developer defaults, then the stored state; at initialization, never throws.
    func loadAtInitialization() {
        object.resetToDeveloperDefaults()
        if let error = loadStoredState(refresh: false) {
            Log.error("\(type(of: object)): \(error)")
        }
        // What a replica changed since its base is taken as assignments made now.
        for replica in replicas() { replica.loaded() }
    }

    /// Loads what is stored into this object, which nobody else can see yet (an initializing
    /// object or a scratch copy), and records what happened in its state (the path: top of file).
    func loadStoredState(refresh: Bool) -> AppSettingsError? {
        let found: (object: PreferencesValue, source: StoredSource)?
        do {
            try checkStorable()
            found = try store.read(refresh: refresh)
        } catch {
            let error = error as? AppSettingsError ?? .readFailed(key: userDefaultsKey, reason: "\(error)")
            if case .storeUnavailable = error { StoreAvailabilityWatcher.start() }
            _state.withLock { state in
                state.ledger.recordLoadError(error)
                state.ledger.markSaved()
            }
            return error
        }
        guard let found else {
            // Never stored: values per-key storage kept under legacy keys, if any.
            var problems = LoadProblems()
            let imported = loadLegacyValues(problems: &problems)
            let error = problems.error(key: userDefaultsKey)
            _state.withLock { state in
                state.ledger.recordLoadError(error)
                state.ledger.markSaved()
                // Imported values are unsaved, so the next synchronization stores them in the set.
                if imported { state.ledger.recordWholeSetChange() }
            }
            return error
        }
        let loadError = loadStoredState(from: found.object, source: found.source)
        // The domain holds an older set than the copy: the copy's is loaded, unsaved, so that the
        // next synchronization writes it back.
        if found.source == .recoveryCopyOverOlder { _state.withLock { $0.ledger.recordWholeSetChange() } }
        // The domain's bytes could not be read at all: a whole recovery copy (Linux) is the set as
        // last saved; it loads over the developer defaults.
        guard case .unreadableArchive? = loadError, found.source == .userDefaults else { return loadError }
        let copy: Data?
        do {
            copy = try store.readRecoveryCopy()
        } catch {
            return loadError  // the copy cannot be read either: the domain's error says what was lost
        }
        guard let copy, codec.readStoredSettings(copy).error == nil else { return loadError }
        // The base is the copy's bytes, so a save backs the domain's up before replacing them;
        // unsaved, so that the next synchronization repairs the domain.
        let copyError = loadStoredState(from: .data(copy), source: .recoveryCopyOverUnreadable)
        _state.withLock { $0.ledger.recordWholeSetChange() }
        return copyError
    }

    /// Loads the values under the settings' legacy keys (nested objects' too), as a load would;
    /// returns whether any value was found.
    private func loadLegacyValues(problems: inout LoadProblems) -> Bool {
        let entries = legacyEntries(in: store, path: "", problems: &problems)
        guard !entries.isEmpty else { return false }
        _ = fill(fromStored: entries) { problem in
            problems.append(setting: problem.setting, reason: "its legacy value \(problem.reason)")
        }
        return true
    }

    /// The values under this object's legacy keys in `store` (the top object's: a nested
    /// object's own store is not where its parent's settings live) as stored values, by stored name.
    private func legacyEntries(
        in store: SettingsStore,
        path: String,
        problems: inout LoadProblems
    ) -> [String: StoredValue] {
        var entries: [String: StoredValue] = [:]
        for slot in slots where !slot.isConstant {
            if let nested = slot.nestedObject {
                let nestedEntries = nested.ledger.legacyEntries(
                    in: store, path: path + slot.name + ".", problems: &problems)
                if !nestedEntries.isEmpty { entries[slot.name] = .dictionary(nestedEntries) }
                continue
            }
            guard let key = slot.legacyKey, let value = store.storedObject(forLegacyKey: key) else { continue }
            guard let stored = StoredValue(propertyListValue: value) else {
                problems.append(
                    setting: path + slot.name,
                    reason: "the legacy key '\(key)' holds \(foundTypeName(of: value)), expected \(slot.valueTypeName)")
                continue
            }
            entries[slot.name] = stored
        }
        return entries
    }

    /// Decodes `read` into this unpublished object and records it as the object's stored base.
    func loadStoredState(from read: PreferencesValue, source: StoredSource) -> AppSettingsError? {
        // What `validate:` or `checkAfterDecode()` repairs while the values go in counts as a
        // change after it (`fill(fromStored:)`): unsaved, so that the next save stores the repair.
        let generationBeforeLoad = _state.withLock { $0.ledger.changes.generation }
        var stored = StoredBase()
        var error: AppSettingsError?
        switch read {
        case .other(_, let typeName):
            error = .notData(key: userDefaultsKey, foundType: typeName)
        case .data(let data):
            stored.data = data
            error = decode(data, into: &stored)
        }
        stored.unreadable = error == nil ? nil : read
        switch source {
        case .recoveryCopy:
            Log.notice("\(userDefaultsKey) was missing from its UserDefaults domain; loaded from the recovery copy")
        case .recoveryCopyOverUnreadable:
            Log.notice(
                "\(userDefaultsKey) could not be read from its UserDefaults domain; loaded from the recovery copy "
                    + "(the domain's bytes are backed up at the next save)")
        case .userDefaultsUndecided(let reason):
            if error == nil { error = .ambiguousStoredSet(key: userDefaultsKey, reason: reason) }
        case .userDefaults, .recoveryCopyOverOlder:
            break  // the older set the copy replaced is logged by the store, which a save reads too
        }
        _state.withLock { $0.ledger.recordLoad(stored, error: error, changedAfter: generationBeforeLoad) }
        return error
    }

    /// Reads `data` into this object (`fill(fromStored:)`) and `stored`; returns what could not be used.
    private func decode(_ data: Data, into stored: inout StoredBase) -> AppSettingsError? {
        // A live object of this class that loaded or saved these very bytes (each write has its
        // own `$writeID`) read them already: its value trees are what the archive holds. An app's
        // `shared` and an object made beside it decode the archive once.
        if let known = StoreRegistry.storedBase(for: object, holding: data) {
            (stored.schemaVersion, stored.records, stored.values) = (known.schemaVersion, known.records, known.values)
            var problems = LoadProblems()
            stored.unknownValues = fill(fromStored: known.values) { problems.append($0) }
            return problems.error(key: userDefaultsKey)
        }
        let settings = codec.readStoredSettings(data)
        stored.schemaVersion = settings.schemaVersion
        stored.records = settings.records
        guard let entries = settings.entries else { return settings.error }
        stored.values = entries
        var problems = settings.problems
        stored.unknownValues = fill(fromStored: entries) { problems.append($0) }
        return settings.error ?? problems.error(key: userDefaultsKey)
    }

    var storedSettingNames: [String] {
        slots.filter { !$0.isConstant }.map(\.name)
    }

    /// The one walk over the settings for every way values come in (a load, a decode from
    /// another archive, a nested object in a collection, ``update(from:)``): each value is
    /// converted and validated by its setting and assigned, nested objects are filled in place,
    /// then `checkAfterDecode()` runs. Returns the entries no setting claimed. A value that
    /// `validate:` or `checkAfterDecode()` changed is recorded as a change of this object.
    ///
    /// `problem` is called for each value that does not fit; a throwing `problem` stops the walk
    /// (``update(from:)`` is all or nothing and discards the object it was filling).
    func fill(
        fromStored entries: [String: StoredValue],
        path: String = "",
        problem: (SettingProblem) throws -> Void
    ) rethrows -> [String: StoredValue] {
        var unknown = entries
        // Converted and validated outside the lock (`validate` is the app's code), then stored
        // under it in one go: this object is unpublished, so nothing is compared or announced.
        var decoded: [(slot: AnySettingSlot, value: Any)] = []
        decoded.reserveCapacity(slots.count)
        // The settings `validate:` (here or in a nested object) changed: repairs, so unsaved.
        var repaired: [Int] = []
        for slot in slots where !slot.isConstant {
            guard let stored = unknown.removeValue(forKey: slot.name) else { continue }
            if let nested = slot.nestedObject {
                guard case .dictionary(let nestedEntries) = stored else {
                    try problem(
                        SettingProblem(
                            setting: path + slot.name, expected: "dictionary",
                            reason: "holds \(stored.kindDescription), expected settings"))
                    continue
                }
                let before = nested._state.withLock { $0.ledger.changes.generation }
                let nestedUnknown = try nested.ledger.fill(
                    fromStored: nestedEntries, path: path + slot.name + ".", problem: problem)
                let nestedChanged = nested._state.withLock { state in
                    state.ledger.recordUnknownValues(nestedUnknown)
                    return state.ledger.changes.generation != before
                }
                if nestedChanged { repaired.append(slot.index) }
                continue
            }
            do {
                let result = try slot.decode(stored)
                decoded.append((slot, result.value))
                if result.repaired { repaired.append(slot.index) }
            } catch let mismatch as StoredValueMismatch {
                try problem(
                    SettingProblem(
                        setting: path + slot.name, expected: slot.valueTypeName,
                        reason: "holds \(mismatch.found), expected \(mismatch.expected)"))
            } catch {
                try problem(SettingProblem(setting: path + slot.name, expected: slot.valueTypeName, reason: "\(error)"))
            }
        }
        _state.withLock { state in
            for (slot, value) in decoded { slot.assignWithoutComparing(value) }
            state.ledger.recordChange(of: repaired)
        }
        // Its assignments count as changes too (`_writeSetting`): a load keeps them unsaved.
        object.checkAfterDecode()
        return unknown
    }
}

extension StoredValue {
    /// The form handed to `migrate(_:fromSchemaVersion:)`: property-list values, `nil` as `NSNull`.
    var migrationValue: Any {
        switch self {
        case .null: NSNull()
        case .array(let values), .set(let values): values.map(\.migrationValue)
        case .dictionary(let values): values.mapValues(\.migrationValue)
        // As `JSONSerialization` gives a number: an integer, or the `Double` nearest it.
        case .numberText: withNumberTextRead.propertyListValue ?? NSNull()
        default: propertyListValue ?? NSNull()
        }
    }
}
