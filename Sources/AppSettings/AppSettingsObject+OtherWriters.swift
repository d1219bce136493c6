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
        get { _state.withLock { $0.reloadsWhenStoredSettingsChange } }
        set { _state.withLock { $0.reloadsWhenStoredSettingsChange = newValue } }
    }

    /// Told by the store watcher that another process stored this object's set, which now holds
    /// `stored` (`nil`: not readable as bytes). Nothing to tell when it is what this object last
    /// loaded or saved (it merged that write already, or wrote it).
    final func storedSettingsDidChange(inAnotherProcess stored: Data?) {
        if let stored, stored == _state.withLock({ $0.stored.data }) { return }
        storedSettingsDidChange()
    }

    /// Reloads what is stored when this object has no unsaved changes, into every setting not
    /// changed since that was checked: an assignment made meanwhile on another thread stays, and
    /// stays unsaved.
    private func reloadIfClean() {
        let snapshot = takeSnapshot()
        guard _state.withLock({ $0.savedGeneration == snapshot.generation }) else { return }
        let scratch = makeScratchCopy(copyingValues: false)
        scratch.resetToDeveloperDefaults()
        let error = scratch.loadStoredState(refresh: true)
        var adopted: [(object: AppSettingsObject, indices: [Int])] = []
        adoptStoredValues(of: scratch, over: snapshot, into: &adopted)
        let loadState = scratch._state.withLock { $0 }
        _state.withLock { state in
            state.takeLoadState(of: loadState)
            // Clean only if nothing changed since the check; a later change is still unsaved.
            if state.generation == snapshot.generation { state.savedGeneration = state.generation }
        }
        for (object, indices) in adopted { object.announce(indices, propagatesToParent: false) }
        if let error { Log.error("\(type(of: self)): reloading what another writer stored: \(error)") }
    }

    /// Told that another instance or process wrote the stored set: reloads if asked to and
    /// clean, then posts ``storedSettingsDidChangeNotification`` and yields the event.
    final func storedSettingsDidChange() {
        if _state.withLock({ $0.reloadsWhenStoredSettingsChange }) { reloadIfClean() }
        let continuations = _state.withLock { Array($0.continuations.values) }
        NotificationCenter.default.post(name: Self.storedSettingsDidChangeNotification, object: self)
        for continuation in continuations { continuation.yield(.storedSettingsChanged) }
    }
}
