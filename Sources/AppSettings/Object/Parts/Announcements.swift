import Foundation

/// Who hears of an object's changes, and the changes held back while a transaction runs.
/// Guarded by the object's `_state`; what it hands out is called only after the lock is released.
struct Announcements {
    /// The streams of ``AppSettingsObject/changes`` still listening, by stream.
    var continuations: [UUID: AsyncStream<AppSettingsChange>.Continuation] = [:]
    /// How many transactions (`inTransaction`) are running; changes are collected while above 0.
    private var transactionDepth = 0
    private var changedInTransaction: Set<Int> = []
    /// Deliveries (Observation, notifications, change sequences) not yet made, in order: one thread
    /// at a time makes them, outside the lock, so that each observation registration is told once
    /// per change whatever the threads (Observation calls every registration it finds in `willSet`
    /// before it cancels the one-shot ones: two threads' `willSet`s would both find it).
    private var waitingDeliveries: [() -> Void] = []
    /// Whether a thread is making the deliveries; the others only queue theirs.
    private var delivering = false

    /// Queues `delivery`; `true` when the caller is to make the queued deliveries (no other thread
    /// is), taking each with ``nextDelivery()``.
    mutating func queue(_ delivery: @escaping () -> Void) -> Bool {
        waitingDeliveries.append(delivery)
        guard !delivering else { return false }
        delivering = true
        return true
    }

    /// The next delivery to make, or `nil` when none is left (the delivering thread is done).
    mutating func nextDelivery() -> (() -> Void)? {
        guard !waitingDeliveries.isEmpty else {
            delivering = false
            return nil
        }
        return waitingDeliveries.removeFirst()
    }

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

/// The part of an object that tells of changes: Observation, the parent object, notifications and
/// `changes` sequences, one delivery at a time (`ObjectState.announcements`, an ``Announcements``).
struct Announcer: ObjectPart {
    let object: AppSettingsObject

    /// Sends this object's changes to `continuation` (a `changes` sequence) from now on.
    func addStream(_ continuation: AsyncStream<AppSettingsChange>.Continuation, id: UUID) {
        _state.withLock { $0.announcements.continuations[id] = continuation }
    }

    /// The `changes` sequences open now, for an event that is not a change of values.
    var listeners: [AsyncStream<AppSettingsChange>.Continuation] {
        _state.withLock { $0.announcements.listeners }
    }

    /// The `changes` sequence `id` ended: nothing more is sent to it.
    func removeStream(id: UUID) {
        _ = _state.withLock { $0.announcements.continuations.removeValue(forKey: id) }
    }
}

extension AppSettingsObject {
    /// Tells of this object's changes (``Announcer``).
    var announcer: Announcer { Announcer(object: self) }
}
