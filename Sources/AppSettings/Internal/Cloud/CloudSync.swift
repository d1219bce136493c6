import Foundation

/// A settings object's link to the cloud key-value store it syncs with: the store, the tokens of
/// its observers, and the checks it makes again by itself (``CloudRecheckSchedule``).
///
/// Every call into the store goes through here, and none names a key over 64 bytes (Apple,
/// `NSUbiquitousKeyValueStore`: "The maximum length for key strings is 64 bytes using UTF-8
/// encoding"; the store raises an exception for a longer one).
///
/// Its lock is a leaf: the store and the environment are called outside it.
final class CloudSync: @unchecked Sendable {
    // `store` and `environment` are immutable and thread-safe by contract, as
    // `NSUbiquitousKeyValueStore` is. The rest is behind `state`'s lock.
    let store: any CloudKeyValueStore
    let environment: any CloudEnvironment
    private let state = Protected(LinkState())

    private struct LinkState {
        var tokens: (store: (any NSObjectProtocol)?, environment: any NSObjectProtocol)?
        /// What a check does (set by `start`).
        var check: (@Sendable () -> Void)?
        /// Raised by each trigger: a scheduled check of an older sequence does nothing.
        var generation = 0
        /// The account the store was last seen signed into (at the start, an account event, a save).
        var lastAccount: String?
        /// Stopped, still seeing the account (``stop(keepingAccount:)``).
        var isPaused = false
    }

    /// One value to write to the store's local copy: `value` is a property-list value.
    struct Push {
        var key: String
        var name: String
        var value: Any
    }

    init(store: any CloudKeyValueStore) {
        self.store = store
        self.environment = (store as? any CloudEnvironment) ?? SystemCloudEnvironment.shared
    }

    /// Starts the calls of `observer` with the store's change notices, of `event` with the
    /// environment's events, and of `check` at the times of ``CloudRecheckSchedule`` after each
    /// trigger (``checkAgainLater()``).
    func start(
        observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void,
        event: @escaping @Sendable (CloudEnvironmentEvent) -> Void,
        check: @escaping @Sendable () -> Void
    ) {
        _ = accountOfSaves
        let storeToken = store.addChangeObserver(observer)
        let environmentToken = environment.addEventObserver { [weak self] change in
            guard let self else { return }
            // Stopped, the link still sees the account: what is saved meanwhile belongs to it.
            _ = self.accountOfSaves
            if !self.state.withLock({ $0.isPaused }) { event(change) }
        }
        state.withLock { state in
            state.tokens = (storeToken, environmentToken)
            state.check = check
        }
    }

    /// Ends the calls of the store's observer and of the checks; with `keepingAccount`, the link
    /// still sees the account the store is signed into (``accountOfSaves``), as after
    /// `stopSyncing()`; else it ends that too.
    func stop(keepingAccount: Bool = false) {
        let tokens = state.withLock { state in
            defer {
                state.tokens = keepingAccount ? state.tokens.map { (nil, $0.environment) } : nil
                state.isPaused = keepingAccount
                state.check = nil
                state.generation += 1
            }
            return state.tokens
        }
        guard let tokens else { return }
        if let storeToken = tokens.store { store.removeChangeObserver(storeToken) }
        if !keepingAccount { environment.removeEventObserver(tokens.environment) }
    }

    /// The account what is saved now belongs to: the one the store is signed into, or, signed
    /// out, the last one it was seen signed into; `nil` when the store cannot tell.
    var accountOfSaves: String? {
        switch store.account {
        case .signedIn(let identifier):
            state.withLock { $0.lastAccount = identifier }
            return identifier
        case .signedOut: return state.withLock { $0.lastAccount }
        case .unknown: return nil
        }
    }

    /// Starts the sequence of checks again from its first delay.
    func checkAgainLater() {
        guard !CloudSyncMutation.isActive(.noRechecks) else { return }
        let generation = state.withLock { state -> Int? in
            guard state.check != nil else { return nil }
            state.generation += 1
            return state.generation
        }
        if let generation { scheduleCheck(step: 0, generation: generation) }
    }

    private func scheduleCheck(step: Int, generation: Int) {
        environment.schedule(after: CloudRecheckSchedule.delay(ofStep: step)) { [weak self] in
            guard let self, let check = self.state.withLock({ $0.generation == generation ? $0.check : nil }) else {
                return
            }
            check()
            self.scheduleCheck(step: min(step + 1, CloudRecheckSchedule.delays.count), generation: generation)
        }
    }

    /// Writes `pushes` to the store's local copy; the store uploads them when it chooses (Apple:
    /// call `synchronize()` "sparingly", "only at launch or when your app returns to the
    /// foreground"), so nothing asks it to. Then checks again later: a write made before the
    /// first download is discarded, and the notice that says so may not come.
    func send(_ pushes: [Push]) {
        for push in pushes where CloudLimits.isValidKey(push.key) { store.set(push.value, forKey: push.key) }
        checkAgainLater()
    }

    /// Removes `key` from the store (never a key over 64 bytes: nothing was ever stored under it).
    func remove(_ key: String) {
        guard CloudLimits.isValidKey(key) else { return }
        store.removeObject(forKey: key)
    }

    /// The property-list value the store's local copy holds under `key` (never asked for a key
    /// over 64 bytes).
    func object(forKey key: String) -> Any? {
        guard CloudLimits.isValidKey(key) else { return nil }
        return store.object(forKey: key)
    }

    /// The envelope the store's local copy holds under `key`: `nil` when it holds nothing, `.none`
    /// inside when it holds something that is not a property list.
    func envelope(forKey key: String) -> CloudEnvelope?? {
        guard let value = object(forKey: key) else { return nil }
        return .some(CloudEnvelope(propertyListValue: value))
    }
}

/// What a synchronization sends, and the synced values it does not send because the cloud would
/// refuse them.
struct CloudPushPlan {
    var values: [CloudSync.Push] = []
    var failures: [AppSettingsError] = []
}

/// An object's link to the cloud store it syncs with: the `CloudCoordinator`'s part of the
/// object's state (`ObjectState.cloud`), set only by the methods below.
struct CloudLink {
    /// The cloud store this object syncs with, while it does.
    private(set) var sync: CloudSync?
    /// The link `stopSyncing()` stopped, until syncing starts again: it still sees the account.
    private(set) var stopped: CloudSync?

    /// Syncs through `sync` from now on (the links before are ended by `stop()` first).
    mutating func attach(_ sync: CloudSync) {
        self.sync = sync
    }

    /// Stops syncing: the link it synced through is kept as the stopped one, and returned.
    mutating func pause() -> CloudSync? {
        defer { (sync, stopped) = (nil, sync ?? stopped) }
        return sync
    }

    /// Ends both links, and returns them.
    mutating func stop() -> [CloudSync?] {
        defer { (sync, stopped) = (nil, nil) }
        return [sync, stopped]
    }
}
