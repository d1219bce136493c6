import Foundation

/// Who hears of an object's changes, and the changes held back while a transaction runs.
/// Guarded by the object's `_state`; what it hands out is called only after the lock is released.
struct Announcements {
    /// The streams of ``AppSettingsObject/changes`` still listening, by stream.
    var continuations: [UUID: AsyncStream<AppSettingsChange>.Continuation] = [:]
    /// How many transactions (`inTransaction`) are running; changes are collected while above 0.
    private var transactionDepth = 0
    private var changedInTransaction: Set<Int> = []

    /// The continuations to yield to, copied out to be called without the lock.
    var listeners: [AsyncStream<AppSettingsChange>.Continuation] {
        continuations.isEmpty ? [] : Array(continuations.values)
    }

    /// Keeps `indices` for the end of the running transaction; `false` when none runs.
    mutating func holdBack(_ indices: [Int]) -> Bool {
        guard transactionDepth > 0 else { return false }
        changedInTransaction.formUnion(indices)
        return true
    }

    mutating func beginTransaction() {
        transactionDepth += 1
    }

    /// Ends a transaction: the settings changed in it, once the outermost one ends.
    mutating func endTransaction() -> [Int] {
        transactionDepth -= 1
        guard transactionDepth == 0 else { return [] }
        defer { changedInTransaction = [] }
        return changedInTransaction.sorted()
    }

    /// Stops listening: the continuations to finish, copied out.
    mutating func removeAll() -> [AsyncStream<AppSettingsChange>.Continuation] {
        defer { continuations = [:] }
        return Array(continuations.values)
    }
}

/// An object's link to the cloud store it syncs with.
struct CloudLink {
    /// The cloud store this object syncs with, while it does.
    var sync: CloudSync?
    /// Set on the scratch copy a pull stores through: its changes came from the cloud, so they
    /// are not changes to send.
    var changesCameFromCloud = false
}
