import Foundation

/// A settings object's link to the cloud key-value store it syncs with: the store and the token
/// of its change observer.
///
/// Its lock is a leaf: the store is called outside it.
final class CloudSync: @unchecked Sendable {
    // `store` is immutable; a `CloudKeyValueStore` is thread-safe by contract, as
    // `NSUbiquitousKeyValueStore` is. The token is behind `token`'s lock.
    let store: any CloudKeyValueStore
    private let token = Protected<(any NSObjectProtocol)?>(nil)

    /// One value to write to the store's local copy: `value` is a property-list value.
    struct Push {
        var key: String
        var name: String
        var value: Any
    }

    init(store: any CloudKeyValueStore) {
        self.store = store
    }

    /// Starts the calls of `observer` with the store's change notices.
    func start(observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void) {
        let newToken = store.addChangeObserver(observer)
        token.withLock { $0 = newToken }
    }

    /// Ends the calls of the observer.
    func stop() {
        let old = token.withLock { token in
            defer { token = nil }
            return token
        }
        if let old { store.removeChangeObserver(old) }
    }

    /// Writes `pushes` to the store's local copy; the store uploads them when it chooses (Apple:
    /// call `synchronize()` "sparingly", "only at launch or when your app returns to the
    /// foreground"), so nothing asks it to.
    func send(_ pushes: [Push]) {
        for push in pushes { store.set(push.value, forKey: push.key) }
    }

    /// The envelope the store's local copy holds under `key`: `nil` when it holds nothing, `.none`
    /// inside when it holds something that is not a property list.
    func envelope(forKey key: String) -> CloudEnvelope?? {
        guard let value = store.object(forKey: key) else { return nil }
        return .some(CloudEnvelope(propertyListValue: value))
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

/// Deliberately broken variants of the sync rules, for the random-schedule suite's mutation
/// self-test only (it proves the suite catches each one). Bound as a task-local value by that
/// test, so no other test, and no app, ever sees one.
enum CloudSyncMutation: CaseIterable, Sendable {
    /// A value is sent only when the store holds nothing for it: a stale upload that won on the
    /// server is never corrected.
    case neverResend
    /// A change's version is not raised past the versions seen: a later change can lose.
    case versionNotRaised
    /// Another account is not noticed: the old account's values stay and are sent to it.
    case accountIgnored
    /// Any value the store holds that differs is taken, older or newer.
    case takesOlderValues

    @TaskLocal static var current: CloudSyncMutation?
}
