import Foundation

// What a live object does when another writer stored its set: another object of this process
// (`StoreRegistry.storeDidChange`) or another process (the store watcher, through
// `StoreRegistry`): it is told, and with `reloadsWhenStoredSettingsChange` it reloads when clean.

extension AppSettingsObject {
    /// Whether this object reloads what is stored by itself when another object or process
    /// stored its set while this object has no unsaved changes; `false` by default.
    ///
    /// For objects that only read: a widget, a menu, an extension showing what the app stored.
    /// The reload loads what is stored as ``resetToUserDefaults()`` does (observers are told of
    /// each changed setting) and runs before ``storedSettingsDidChangeNotification`` is posted. An
    /// object with unsaved changes keeps them and is only told; a setting assigned while the
    /// reload is on its way keeps its new value, unsaved.
    ///
    /// ```swift
    /// let settings = MySettings(userDefaults: UserDefaults(appGroup: "group.com.example.myapp")!)
    /// settings.reloadsWhenStoredSettingsChange = true
    /// ```
    public final var reloadsWhenStoredSettingsChange: Bool {
        get { ledger.reloadsWhenStoredSettingsChange }
        set { ledger.reloadsWhenStoredSettingsChange = newValue }
    }
}

extension SettingsLedger {
    /// Whether another process's write of the set is loaded at once (the public
    /// `reloadsWhenStoredSettingsChange`).
    var reloadsWhenStoredSettingsChange: Bool {
        get { _state.withLock { $0.ledger.reloadsWhenStoredSettingsChange } }
        nonmutating set { _state.withLock { $0.ledger.setReloadsWhenStoredSettingsChange(newValue) } }
    }

    /// Told by the store watcher that another process stored this object's set, which now holds
    /// `stored` (`nil`: not readable as bytes). Nothing to tell when it is what this object last
    /// loaded or saved (it merged that write already, or wrote it).
    func storedSettingsDidChange(inAnotherProcess stored: Data?) {
        if let stored, stored == _state.withLock({ $0.ledger.stored.data }) { return }
        storedSettingsDidChange()
    }

    /// Reloads what is stored when this object has no unsaved changes, into every setting not
    /// changed since that was checked (an assignment made meanwhile stays, unsaved).
    private func reloadIfClean() {
        let snapshot = takeSnapshot()
        guard _state.withLock({ $0.ledger.changes.savedGeneration == snapshot.changes.generation }) else { return }
        let scratch = object.ledger.makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.ledger.loadStoredState(refresh: true)
        var adopted: [(object: AppSettingsObject, indices: [Int])] = []
        takeStoredValues(of: scratch, over: snapshot, into: &adopted)
        let loadState = scratch._state.withLock { $0 }
        _state.withLock { state in
            state.takeLoadState(of: loadState)
            // Clean only if nothing changed since the check; a later change is still unsaved.
            if state.ledger.changes.generation == snapshot.changes.generation { state.ledger.markSaved() }
        }
        for (object, indices) in adopted { object.announcer.announce(indices, propagatesToParent: false) }
        if let error { Log.error("\(type(of: object)): reloading what another writer stored: \(error)") }
    }

    /// Called when protected data becomes available: when the last load found the store
    /// unavailable and it can be read now, loads it into every setting not changed since (the
    /// changes made meanwhile stay on top, unsaved).
    func reloadIfStoreBecameAvailable() {
        guard embeddingParent == nil, case .storeUnavailable? = _state.withLock({ $0.ledger.lastLoadError }) else {
            return
        }
        var snapshot = takeSnapshot()
        snapshot.excludeChangesSinceLastLoad()
        let scratch = object.ledger.makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.ledger.loadStoredState(refresh: true)
        if case .storeUnavailable? = error { return }
        var adopted: [(object: AppSettingsObject, indices: [Int])] = []
        takeStoredValues(of: scratch, over: snapshot, into: &adopted)
        let loadState = scratch._state.withLock { $0 }
        _state.withLock { state in
            // Only if no synchronization took the store's set meanwhile.
            if case .storeUnavailable? = state.ledger.lastLoadError { state.takeLoadState(of: loadState) }
        }
        for (object, indices) in adopted { object.announcer.announce(indices, propagatesToParent: false) }
        if let error {
            Log.error("\(type(of: object)): loading what the store holds now that it can be read: \(error)")
        }
    }

    func storedSettingsDidChange() {
        if _state.withLock({ $0.ledger.reloadsWhenStoredSettingsChange }) { reloadIfClean() }
        let continuations = announcer.listeners
        NotificationCenter.default.post(name: AppSettingsObject.storedSettingsDidChangeNotification, object: object)
        for continuation in continuations { continuation.yield(.storedSettingsChanged) }
    }
}

/// Loads the sets that could not be read when protected data becomes available (Apple platforms:
/// UIKit's `protectedDataDidBecomeAvailableNotification`, "posts when the protected files become
/// available for your code to access", and AppKit's; observed by name, Foundation only). Started
/// before the first availability check and by the first load that finds a store unavailable, so
/// that no notice falls between the check and the observer. Elsewhere (and in an extension) the
/// next synchronization reads the store again. An object still initializing reloads once
/// published when ``noticeCount`` moved meanwhile.
enum StoreAvailabilityWatcher {
    private static let notices = Protected(0)
    /// How many notices arrived: read before a load, compared once the object is live.
    static var noticeCount: Int { notices.withLock { $0 } }

    private static let queue = DispatchQueue(label: "AppSettings.storeAvailability")
    private static let names = [
        Notification.Name("UIApplicationProtectedDataDidBecomeAvailable"),
        Notification.Name("NSApplicationProtectedDataDidBecomeAvailableNotification"),
    ]

    static func start() { _ = started }

    private static let started: Bool = {
        for name in names {
            // Posted on the main thread: the reload runs on a queue of its own.
            _ = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in
                notices.withLock { $0 += 1 }
                queue.async {
                    for object in StoreRegistry.liveObjects(where: { _ in true }) {
                        object.ledger.reloadIfStoreBecameAvailable()
                    }
                }
            }
        }
        return true
    }()
}
