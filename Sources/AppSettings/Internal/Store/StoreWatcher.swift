import Foundation

// How a live settings object learns that ANOTHER PROCESS stored its set (objects of one process
// tell each other directly, in `StoreRegistry.storeDidChange`). Watching costs nothing while no
// object is alive: it starts with the first live object of a store and stops with the last.
//
// Each write of this process records its archive's `$writeID` first (`recordOwnWrite`), so that
// what this process wrote is never reported as another's, however late the watcher looks: a
// change is foreign when the stored archive's `$writeID` is not one of this process's recent
// writes (and, per object, when the bytes differ from what that object last loaded or saved).

/// Watches the stores of live settings objects for writes of other processes.
enum StoreWatcher {
    /// The `$writeID`s of this process's most recent writes, oldest first.
    private static let ownWriteIDs = Protected<[Int64]>([])
    /// How many are kept: more than the writes a watcher can lag behind.
    private static let ownWriteIDCount = 256

    /// Records that this process is about to write an archive with `writeID`; called before the
    /// write, so that the change it causes is known as this process's own when it is seen.
    static func recordOwnWrite(_ writeID: Int64) {
        ownWriteIDs.withLock { ids in
            if ids.count == ownWriteIDCount { ids.removeFirst() }
            ids.append(writeID)
        }
    }

    /// Tells `objects` that their store now holds `stored`, unless this process wrote it.
    static func storeChanged(holding stored: Data?, objects: [AppSettingsObject]) {
        if let stored, let writeID = writeID(of: stored), ownWriteIDs.withLock({ $0.contains(writeID) }) { return }
        for object in objects { object.storedSettingsDidChange(inAnotherProcess: stored) }
    }

    private static func writeID(of data: Data) -> Int64? {
        do {
            var reader = try KeyedArchiveReader(data)
            return try reader.root().writeID
        } catch {
            return nil  // not an archive of this library: not this process's write
        }
    }
}

#if !os(Linux) && !canImport(Darwin) && !APPLE_STAND_INS
    // Any other platform: no cross-process notice (objects of one process still tell each other).
    extension StoreWatcher {
        static func startWatching(_ store: SettingsStore) {}
        static func stopWatching(_ store: SettingsStore) {}
        static func announceWrite(to store: SettingsStore) {}
    }
#endif
