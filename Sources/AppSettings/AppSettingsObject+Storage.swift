import Foundation
import Observation

extension AppSettingsObject {
    // MARK: Public storage API

    /// Writes the whole settings set to `UserDefaults` as one keyed archive and flushes it to
    /// disk, so that another process, or the next launch, reads it.
    ///
    /// A clean object (nothing changed since the last load or synchronization) returns at once:
    /// no archiving, no I/O. Settings stored by a newer version of the app that this class does
    /// not declare are written back unchanged. If the last load could not use what was stored,
    /// those bytes are first kept under `"<userDefaultsKey>.unreadable-<milliseconds>"`.
    ///
    /// Calling it on a nested settings object synchronizes the object it is nested in.
    ///
    /// - Throws: ``AppSettingsError`` when the key postfix is empty, a value cannot be encoded or
    ///   the archive exceeds the platform's limit (3 MiB; 512 KiB on tvOS and watchOS; nothing is
    ///   written then), or when the store cannot be written
    ///   (``AppSettingsError/storeFailed(key:reason:)``: `UserDefaults` may hold the new set
    ///   already, but without its recovery copy on Linux). In every case the object keeps its
    ///   unsaved changes, so the next synchronization tries again.
    public final func synchronizeToUserDefaults() throws {
        let (parent, isUnsaved) = _state.withLock { ($0.parent?.object, $0.generation != $0.savedGeneration) }
        if let parent {
            try parent.synchronizeToUserDefaults()
            return
        }
        guard isUnsaved else { return }
        try checkStorable()
        // One synchronization of an object at a time, so the last snapshot taken is the last written.
        let written: (data: Data, backupKey: String?)? = try _synchronization.withLock { _ in
            guard let snapshot = takeSnapshot(onlyIfUnsaved: true) else { return nil }
            let data = try archive(snapshot)
            guard data.count <= SettingsStore.maximumByteCount else {
                throw AppSettingsError.tooLarge(
                    key: userDefaultsKey,
                    byteCount: data.count,
                    limit: SettingsStore.maximumByteCount
                )
            }
            let backupKey = try store.write(data, backingUp: snapshot.unreadableStoredObject)
            markSaved(snapshot, backedUp: backupKey != nil)
            return (data, backupKey)
        }
        guard let written else { return }
        if let backupKey = written.backupKey {
            Log.notice("\(userDefaultsKey): the value that could not be read was kept under '\(backupKey)'")
        }
        StoreRegistry.storeDidChange(self, stored: written.data)
    }

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
        if let parent = embeddingParent {
            try parent.resetToUserDefaults()
            return
        }
        let scratch = makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.loadStoredState(refresh: true)
        adopt(scratch, markingSaved: true, takingLoadState: true)
        if let error { throw error }
    }

    /// Deletes the stored set and resets every setting to its developer default.
    ///
    /// - Throws: ``AppSettingsError/storeFailed(key:reason:)`` when the store cannot be written.
    public final func removeFromUserDefaults() throws {
        if let parent = embeddingParent {
            try parent.removeFromUserDefaults()
            return
        }
        try checkStorable()
        // Found before the removal, by what they share with this object's store now.
        let others: [AppSettingsObject]
        if case .data(let stored)? = store.domain.value(forKey: userDefaultsKey) {
            others = StoreRegistry.objects(sharingStoreWith: self, holding: stored)
        } else {
            others = []
        }
        try store.remove()
        let scratch = makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        adopt(scratch, markingSaved: true, takingLoadState: true)
        for other in others { other.storedSettingsDidChange() }
    }

    // MARK: Loading

    func checkStorable() throws {
        if let error = layout.error { throw error }
        guard userDefaultsKey != Self.keyPrefix else {
            throw AppSettingsError.emptyKeyPostfix(settingsClass: String(describing: type(of: self)))
        }
    }

    /// Developer defaults, then the stored state; at initialization, never throws.
    func loadAtInitialization() {
        resetToDeveloperDefaults()
        if let error = loadStoredState(refresh: false) {
            Log.error("\(type(of: self)): \(error)")
        }
    }

    /// Loads what is stored into this object, which nobody else can see yet (an initializing
    /// object or a scratch copy), and records what happened in its state.
    ///
    /// The data path: store → keyed-archive reader (validates every byte) → stored values →
    /// schema migration → per-setting conversion and `validate` → `checkAfterDecode()`.
    func loadStoredState(refresh: Bool) -> AppSettingsError? {
        let found: (object: StoredObject, source: StoredSource)?
        do {
            try checkStorable()
            found = try store.read(refresh: refresh)
        } catch {
            let error = error as? AppSettingsError ?? .storeFailed(key: userDefaultsKey, reason: "\(error)")
            _state.withLock { state in
                state.lastLoadError = error
                state.savedGeneration = state.generation
            }
            return error
        }
        guard let found else {
            _state.withLock { state in
                state.lastLoadError = nil
                state.savedGeneration = state.generation
            }
            return nil
        }
        return loadStoredState(from: found.object, source: found.source)
    }

    /// Decodes what was read from the store into this unpublished object.
    func loadStoredState(from object: StoredObject, source: StoredSource) -> AppSettingsError? {
        var result = LoadResult()
        switch object {
        case .other(_, let typeName):
            result.error = .notData(key: userDefaultsKey, foundType: typeName)
        case .data(let data):
            decode(data, into: &result)
        }
        if source == .recoveryCopy {
            Log.notice("\(userDefaultsKey) was missing from its UserDefaults domain; loaded from the recovery copy")
        }
        _state.withLock { state in
            state.unknownStoredValues = result.unknownStoredValues
            state.storedSchemaVersion = result.storedSchemaVersion
            state.unreadableStoredObject = result.error == nil ? nil : object
            state.lastLoadError = result.error
            state.savedGeneration = state.generation
        }
        return result.error
    }

    private struct LoadResult {
        var error: AppSettingsError?
        var unknownStoredValues: [String: _StoredValue] = [:]
        var storedSchemaVersion: Int?
    }

    private func decode(_ data: Data, into result: inout LoadResult) {
        let key = userDefaultsKey
        var reader: KeyedArchiveReader
        var entries: [String: _StoredValue] = [:]
        var problems: [(setting: String, reason: String)] = []
        do {
            reader = try KeyedArchiveReader(data)
            let set = try reader.storedSet()
            if let format = set.formatVersion, format > KeyedArchive.formatVersion {
                throw ArchiveFormatError(
                    "it was written in format \(format) by a newer version of AppSettings; "
                        + "this version reads formats up to \(KeyedArchive.formatVersion)")
            }
            result.storedSchemaVersion = set.schemaVersion.flatMap { Int(exactly: $0) }
            entries.reserveCapacity(set.settings.count)
            for (name, field) in set.settings {
                do {
                    entries[name] = try reader.value(of: field, depth: 2)
                } catch {
                    problems.append((name, error.description))
                }
            }
        } catch {
            result.error = .unreadableArchive(key: key, settings: storedSettingNames, reason: "\(error)")
            return
        }
        let storedVersion = result.storedSchemaVersion ?? 0
        let currentVersion = type(of: self).schemaVersion
        if storedVersion < currentVersion {
            do {
                entries = try migrated(entries, from: storedVersion)
                result.storedSchemaVersion = currentVersion
            } catch let error as AppSettingsError {
                result.error = error
            } catch {
                result.error = .migrationFailed(key: key, fromSchemaVersion: storedVersion, reason: "\(error)")
            }
        }
        result.unknownStoredValues = apply(entries, path: "", problems: &problems)
        if !problems.isEmpty, result.error == nil {
            result.error = .unreadableSettings(
                key: key,
                settings: problems.map(\.setting),
                reasons: problems.map { "\($0.setting): \($0.reason)" }
            )
        }
    }

    /// The names that are stored: every setting but the `const` ones.
    var storedSettingNames: [String] {
        slots.filter { !$0.isConstant }.map(\.name)
    }

    /// Assigns stored values to this object's settings (and nested ones) and runs
    /// `checkAfterDecode()`; returns the entries no setting claimed.
    func apply(
        _ entries: [String: _StoredValue],
        path: String,
        problems: inout [(setting: String, reason: String)]
    ) -> [String: _StoredValue] {
        var unknown = entries
        for slot in slots where !slot.isConstant {
            guard let stored = unknown.removeValue(forKey: slot.name) else { continue }
            if let nested = slot.nestedObject {
                guard case .dictionary(let nestedEntries) = stored else {
                    problems.append((path + slot.name, "holds \(stored.kindDescription), expected settings"))
                    continue
                }
                let nestedUnknown = nested.apply(nestedEntries, path: path + slot.name + ".", problems: &problems)
                nested._state.withLock { $0.unknownStoredValues = nestedUnknown }
                continue
            }
            do {
                let value = try slot.decode(stored)
                _ = _state.withLock { _ in slot.assign(value) }
            } catch let mismatch as _StoredValueMismatch {
                problems.append((path + slot.name, "holds \(mismatch.found), expected \(mismatch.expected)"))
            } catch {
                problems.append((path + slot.name, "\(error)"))
            }
        }
        checkAfterDecode()
        return unknown
    }

    private func migrated(_ entries: [String: _StoredValue], from version: Int) throws -> [String: _StoredValue] {
        var values = entries.mapValues { $0.migrationValue }
        try migrate(&values, fromSchemaVersion: version)
        var result: [String: _StoredValue] = [:]
        for (name, value) in values {
            guard let stored = _StoredValue(propertyListValue: value) else {
                throw AppSettingsError.migrationFailed(
                    key: userDefaultsKey,
                    fromSchemaVersion: version,
                    reason:
                        "migrate(_:fromSchemaVersion:) left '\(name)' with a value that is not a property-list value"
                )
            }
            result[name] = stored
        }
        return result
    }

    // MARK: Synchronizing

    /// The values of one moment, taken under the lock, archived outside it.
    struct Snapshot {
        var generation: UInt64
        var values: [Any?]
        var nested: [Int: Snapshot]
        var unknownStoredValues: [String: _StoredValue]
        var storedSchemaVersion: Int?
        var unreadableStoredObject: StoredObject?
    }

    func takeSnapshot(onlyIfUnsaved: Bool) -> Snapshot? {
        let snapshot = _state.withLock { state -> Snapshot? in
            if onlyIfUnsaved, state.generation == state.savedGeneration { return nil }
            return Snapshot(
                generation: state.generation,
                values: slots.map { $0.isConstant || $0.nestedObject != nil ? nil : $0.anyValue },
                nested: [:],
                unknownStoredValues: state.unknownStoredValues,
                storedSchemaVersion: state.storedSchemaVersion,
                unreadableStoredObject: state.unreadableStoredObject
            )
        }
        guard var snapshot else { return nil }
        for slot in slots where !slot.isConstant {
            if let nested = slot.nestedObject?.takeSnapshot(onlyIfUnsaved: false) {
                snapshot.nested[slot.index] = nested
            }
        }
        return snapshot
    }

    /// The stored form of a snapshot: declared settings plus the carried-over unknown ones.
    func storedSettings(_ snapshot: Snapshot) throws -> [String: _StoredValue] {
        var settings = snapshot.unknownStoredValues
        for slot in slots where !slot.isConstant {
            if let nested = snapshot.nested[slot.index] {
                settings[slot.name] = .dictionary(try slot.nestedObject?.storedSettings(nested) ?? [:])
            } else if let value = snapshot.values[slot.index] {
                do {
                    settings[slot.name] = try slot.storedValue(of: value)
                } catch {
                    throw AppSettingsError.encodingFailed(key: userDefaultsKey, setting: slot.name, reason: "\(error)")
                }
            }
        }
        return settings
    }

    func archive(_ snapshot: Snapshot) throws -> Data {
        let schemaVersion = max(snapshot.storedSchemaVersion ?? 0, type(of: self).schemaVersion)
        return KeyedArchiveWriter.archive(schemaVersion: Int64(schemaVersion), settings: try storedSettings(snapshot))
    }

    private func markSaved(_ snapshot: Snapshot, backedUp: Bool) {
        _state.withLock { state in
            state.savedGeneration = max(state.savedGeneration, snapshot.generation)
            if backedUp { state.unreadableStoredObject = nil }
            if state.storedSchemaVersion.map({ $0 < type(of: self).schemaVersion }) ?? true {
                state.storedSchemaVersion = type(of: self).schemaVersion
            }
        }
        for slot in slots {
            if let nested = snapshot.nested[slot.index] { slot.nestedObject?.markSaved(nested, backedUp: backedUp) }
        }
    }
}

extension _StoredValue {
    /// The form handed to `migrate(_:fromSchemaVersion:)`: property-list values, `nil` as `NSNull`.
    var migrationValue: Any {
        switch self {
        case .null: NSNull()
        case .array(let values), .set(let values): values.map(\.migrationValue)
        case .dictionary(let values): values.mapValues(\.migrationValue)
        default: propertyListValue ?? NSNull()
        }
    }
}
