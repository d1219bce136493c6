import Foundation

/// A settings object's link to the cloud key-value store it syncs with: the store, the token of
/// its change observer, and the values sent since the last change notice (to restore their cloud
/// base when the cloud refuses them).
///
/// Its lock is a leaf: the store is called outside it.
final class CloudSync: @unchecked Sendable {
    // `store` is immutable; a `CloudKeyValueStore` is thread-safe by contract, as
    // `NSUbiquitousKeyValueStore` is. The rest is behind `state`.
    let store: any CloudKeyValueStore
    private let state = Protected(State())

    private struct State {
        var token: (any NSObjectProtocol)?
        var inFlight: [String: InFlight] = [:]
    }

    /// A value sent under a cloud key, and the cloud base it replaced.
    struct InFlight {
        var name: String
        var previousBase: _StoredValue?
    }

    /// One value to send: `value` is a property-list value, `nil` for a removal.
    struct Push {
        var key: String
        var name: String
        var value: Any?
        var previousBase: _StoredValue?
    }

    init(store: any CloudKeyValueStore) {
        self.store = store
    }

    /// Starts the calls of `observer` with the store's change notices.
    func start(observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void) {
        let token = store.addChangeObserver(observer)
        state.withLock { $0.token = token }
    }

    /// Ends the calls of the observer.
    func stop() {
        let token = state.withLock { state in
            defer { state.token = nil }
            return state.token
        }
        if let token { store.removeChangeObserver(token) }
    }

    /// Writes `pushes` to the store's local copy; ``flush()`` then asks it to upload them.
    func send(_ pushes: [Push]) {
        guard !pushes.isEmpty else { return }
        state.withLock { state in
            for push in pushes { state.inFlight[push.key] = InFlight(name: push.name, previousBase: push.previousBase) }
        }
        for push in pushes {
            if let value = push.value {
                store.set(value, forKey: push.key)
            } else {
                store.removeObject(forKey: push.key)
            }
        }
    }

    /// Asks the store to upload what was sent. Called with no lock of the library held: a store
    /// that posted a change notice from `synchronize()` would otherwise wait for itself.
    func flush() {
        if !store.synchronize() {
            Log.notice("the cloud key-value store could not synchronize its local copy; it uploads the values later")
        }
    }

    /// The values sent under `keys` (all sent values when the notice names no key), forgotten.
    func takeRefused(keys: [String]) -> [(key: String, sent: InFlight)] {
        state.withLock { state in
            let keys = keys.isEmpty ? Array(state.inFlight.keys) : keys
            return keys.sorted().compactMap { key in state.inFlight.removeValue(forKey: key).map { (key, $0) } }
        }
    }

    /// Forgets every value sent: after an account change, they belong to the old account.
    func forgetSentValues() {
        state.withLock { $0.inFlight = [:] }
    }
}

/// What a synchronization sends, and the synced values it does not send because the cloud would
/// refuse them.
struct CloudPushPlan {
    var values: [CloudSync.Push] = []
    var failures: [AppSettingsError] = []
}

/// The cloud state a snapshot carries into a synchronization.
struct CloudSnapshot {
    var record: CloudRecord?
    /// The store to send to, when the object syncs.
    var sync: CloudSync?
    /// Synced settings changed since the last load or save (none when the changes came from the cloud).
    var changed: Set<String> = []
}
