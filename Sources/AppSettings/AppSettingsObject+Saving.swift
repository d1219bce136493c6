import Foundation

// The save path, in the order it runs: snapshot (under the object's lock) → stored values →
// keyed archive → size check → store (Internal/Store) → mark saved → tell other objects of the store.

extension AppSettingsObject {
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
            let backupKey = try store.write(data, backingUp: snapshot.unreadableStoredValue)
            markSaved(snapshot, backedUp: backupKey != nil)
            return (data, backupKey)
        }
        guard let written else { return }
        if let backupKey = written.backupKey {
            Log.notice("\(userDefaultsKey): the value that could not be read was kept under '\(backupKey)'")
        }
        StoreRegistry.storeDidChange(self, stored: written.data)
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
        replaceValues(as: .storedState) { $0.resetToDeveloperDefaults() }
        for other in others { other.storedSettingsDidChange() }
    }

    /// The values of one moment, taken under the lock, archived outside it.
    struct Snapshot {
        var generation: UInt64
        var values: [Any?]
        var nested: [Int: Snapshot]
        var unknownStoredValues: [String: _StoredValue]
        var storedSchemaVersion: Int?
        var unreadableStoredValue: PreferencesValue?
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
                unreadableStoredValue: state.unreadableStoredValue
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

    /// A snapshot encoded as value trees by stored name: the declared settings plus the
    /// carried-over unknown ones. What the archive writer and `hash` take.
    func encodedSettings(_ snapshot: Snapshot) throws -> [String: _StoredValue] {
        var settings = snapshot.unknownStoredValues
        for slot in slots where !slot.isConstant {
            if let nested = snapshot.nested[slot.index] {
                settings[slot.name] = .dictionary(try slot.nestedObject?.encodedSettings(nested) ?? [:])
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
        return KeyedArchiveWriter.archive(schemaVersion: Int64(schemaVersion), settings: try encodedSettings(snapshot))
    }

    private func markSaved(_ snapshot: Snapshot, backedUp: Bool) {
        _state.withLock { state in
            state.savedGeneration = max(state.savedGeneration, snapshot.generation)
            if backedUp { state.unreadableStoredValue = nil }
            if state.storedSchemaVersion.map({ $0 < type(of: self).schemaVersion }) ?? true {
                state.storedSchemaVersion = type(of: self).schemaVersion
            }
        }
        for slot in slots {
            if let nested = snapshot.nested[slot.index] { slot.nestedObject?.markSaved(nested, backedUp: backedUp) }
        }
    }
}
