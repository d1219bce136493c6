import Foundation

// How a live settings object learns that ANOTHER PROCESS stored its set (objects of one process
// tell each other directly, in `StoreRegistry.storeDidChange`). Watching costs nothing while no
// object is alive: it starts with the first live object of a store and stops with the last. The
// watcher knows stores, not objects: it reports each change to one handler (`StoreRegistry`'s),
// which tells the live objects of the stores concerned.
//
// Each write of this process records its archive's `$writeID` first (`recordOwnWrite`), so that
// what this process wrote is never reported as another's, however late the watcher looks: a
// change is foreign when the stored archive's `$writeID` is not one of this process's recent
// writes (and, per object, when the bytes differ from what that object last loaded or saved).

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

    /// Whether `stored` is an archive this process wrote.
    static func isOwnWrite(_ stored: Data) -> Bool {
        guard let writeID = SettingsCodec.writeID(of: stored) else { return false }
        return ownWriteIDs.withLock { $0.contains(writeID) }
    }

    /// What the watcher saw: another process may have stored the sets of some stores.
    struct Change: Sendable {
        /// What a store concerned holds now, as the watcher reads it.
        enum Contents {
            case bytes(Data)
            /// It cannot be read now: its objects are told, and their reload says why.
            case unreadable
            /// Nothing to tell (no copy yet, or replaced again right now: its next event tells).
            case nothing
        }

        /// Whether the change is about `store`.
        let concerns: @Sendable (SettingsStore) -> Bool
        /// What `store` holds now.
        let contents: @Sendable (SettingsStore) -> Contents
    }

    private static let handler = Protected<(@Sendable (Change) -> Void)?>(nil)

    /// Sets the one handler every change goes to.
    static func reportChanges(to handler: @escaping @Sendable (Change) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Hands `change` to the handler, outside any lock of the watcher.
    static func report(_ change: Change) {
        handler.withLock { $0 }?(change)
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
