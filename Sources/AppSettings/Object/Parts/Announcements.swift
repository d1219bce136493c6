import Foundation

/// Who hears of an object's changes (the object it is nested in among them), and the changes
/// waiting for a delivery or a transaction's end: the ``Announcer``'s part of the object's state,
/// guarded by its `_state`, set only by the methods of this file. What it hands out is called only
/// after the lock is released.
struct Announcements {
    /// The object this one is nested in.
    private(set) var parent: WeakSettingsObject?
    /// The streams of ``AppSettingsObject/changes`` still listening, by stream.
    private var continuations: [UUID: AsyncStream<AppSettingsChange>.Continuation] = [:]
    /// How many transactions (`inTransaction`) are running; nothing is delivered while above 0.
    private var transactionDepth = 0
    /// The settings changed and not yet delivered (Observation, the notification, the change
    /// sequences), merged while a thread delivers or a transaction runs: they wait as one delivery,
    /// never as a queue. One thread at a time delivers, outside the lock: Observation calls every
    /// registration it finds in `willSet` before it cancels the one-shot ones, so two threads'
    /// `willSet`s would tell one registration twice of one change.
    private var waiting: Set<Int> = []
    /// Whether a thread is delivering; the others only merge their changes into `waiting`.
    private var delivering = false

    /// Merges `seen` into the waiting changes; the delivery the caller makes now when no thread
    /// delivers and no transaction runs (it is then the delivering thread, and takes the changes
    /// merged meanwhile with ``nextDelivery()`` until `nil`), else `nil`. One change with nothing
    /// waiting (every assignment on one thread) goes as it is.
    mutating func delivery(of seen: [Int]) -> Delivery? {
        if delivering || transactionDepth > 0 || !waiting.isEmpty || seen.isEmpty {
            waiting.formUnion(seen)
            guard !delivering else { return nil }
            delivering = true
            return nextDelivery()
        }
        delivering = true
        return (seen, listeners)
    }

    /// The waiting changes as one delivery, to the change sequences open now; `nil` when none is
    /// waiting or a transaction runs (the delivering thread is done).
    mutating func nextDelivery() -> Delivery? {
        guard !waiting.isEmpty, transactionDepth == 0 else {
            delivering = false
            return nil
        }
        defer { waiting = [] }
        return (waiting.sorted(), listeners)
    }

    /// The continuations to yield to, copied out to be called without the lock.
    var listeners: [AsyncStream<AppSettingsChange>.Continuation] {
        continuations.isEmpty ? [] : Array(continuations.values)
    }

    /// Nests the object in `parent`; whether it was nested in none before.
    mutating func embed(in parent: AppSettingsObject) -> Bool {
        defer { self.parent = WeakSettingsObject(object: parent) }
        return self.parent == nil
    }

    mutating func addStream(_ continuation: AsyncStream<AppSettingsChange>.Continuation, id: UUID) {
        continuations[id] = continuation
    }

    mutating func removeStream(id: UUID) {
        continuations[id] = nil
    }

    mutating func beginTransaction() {
        transactionDepth += 1
    }

    /// Ends a transaction; once the outermost one ends, the delivery of what changed in it and
    /// meanwhile, as ``delivery(of:)`` gives it.
    mutating func endTransaction() -> Delivery? {
        transactionDepth -= 1
        return delivery(of: [])
    }

    /// Stops listening: the continuations to finish, copied out.
    mutating func removeAll() -> [AsyncStream<AppSettingsChange>.Continuation] {
        defer { continuations = [:] }
        return Array(continuations.values)
    }
}

/// One delivery, made with no lock held: the settings it tells of, and the change sequences it tells.
typealias Delivery = (settings: [Int], listeners: [AsyncStream<AppSettingsChange>.Continuation])

/// The part of an object that tells of changes: Observation, the parent object, notifications and
/// `changes` sequences, one delivery at a time (`ObjectState.announcements`, an ``Announcements``).
struct Announcer: ObjectPart {
    let object: AppSettingsObject

    /// Sends this object's changes to `continuation` (a `changes` sequence) from now on.
    func addStream(_ continuation: AsyncStream<AppSettingsChange>.Continuation, id: UUID) {
        _state.withLock { $0.announcements.addStream(continuation, id: id) }
    }

    /// The `changes` sequences open now, for an event that is not a change of values.
    var listeners: [AsyncStream<AppSettingsChange>.Continuation] {
        _state.withLock { $0.announcements.listeners }
    }

    /// The `changes` sequence `id` ended: nothing more is sent to it.
    func removeStream(id: UUID) {
        _state.withLock { $0.announcements.removeStream(id: id) }
    }
}

extension AppSettingsObject {
    /// Tells of this object's changes (``Announcer``).
    var announcer: Announcer { Announcer(object: self) }
}
