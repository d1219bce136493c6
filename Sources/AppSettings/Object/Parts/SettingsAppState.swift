import Foundation

/// What an object knows of the keys the system Settings app shows (`@Setting(inSettingsApp: true)`),
/// the `SettingsAppBridge`'s part of the object's state, guarded by its `_state` and set only by
/// the methods below: what it saw there since the last load or save, and what it did not take.
struct SettingsAppState {
    /// Per stored name, what the key held when the object last looked (as found, before any
    /// conversion): a value seen is taken (or ignored) once, so an assignment made after it stays.
    /// Emptied by a save, after which the keys hold the values written.
    private(set) var seen: [String: StoredValue] = [:]
    /// The values not taken since the last load.
    private(set) var ignored: [IgnoredSettingsAppValue] = []
    /// Whether a key is missing or stale (another writer's save that does not show the setting, a
    /// set stored before it was shown): the next save writes them, even with nothing else changed.
    private(set) var needsWriting = false
    /// Counts the changes of ``seen``: a look at the keys, made outside the lock, applies what it
    /// found only when no other look, save or load changed what was seen meanwhile (else it looks
    /// again), so that a value it read before a reset or a save never lands after a later
    /// assignment.
    private(set) var generation: UInt64 = 0

    /// A key is missing or stale: the next save writes them.
    mutating func markNeedsWriting() {
        needsWriting = true
    }

    /// Records what a look found.
    mutating func see(_ values: [String: StoredValue], ignoring ignored: [IgnoredSettingsAppValue]) {
        seen.merge(values) { $1 }
        ignore(ignored)
        generation &+= 1
    }

    /// Lists values not taken, each once.
    mutating func ignore(_ values: [IgnoredSettingsAppValue]) {
        for value in values where !ignored.contains(value) { ignored.append(value) }
    }

    /// After a write: the keys hold the values written.
    mutating func forgetSeen() {
        seen = [:]
        needsWriting = false
        generation &+= 1
    }

    /// Takes what a load into another object found, counting on from this object's generation.
    mutating func takeLoaded(_ loaded: Self) {
        let next = generation &+ 1
        self = loaded
        generation = next
    }
}
