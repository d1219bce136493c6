import Foundation
import Observation

/// Settings objects are observable per setting: reading `settings.soundLevel` inside
/// `withObservationTracking` (or a SwiftUI view's `body`) tracks that setting only.
extension AppSettingsObject: Observable {}

/// What a settings object reports through ``AppSettingsObject/changes``.
public enum AppSettingsChange: Sendable, Equatable {
    /// These settings of this object changed value (by stored name, in declaration order).
    case settingsChanged([String])
    /// Another instance bound to the same `UserDefaults` and key wrote or removed the stored set,
    /// or another process wrote it. This object keeps its values; call
    /// ``AppSettingsObject/resetToUserDefaults()`` to load it, or set
    /// ``AppSettingsObject/reloadsWhenStoredSettingsChange``.
    case storedSettingsChanged
    /// ``AppSettingsObject/synchronizeToUserDefaults()`` found these settings (by stored name)
    /// changed both by this object and by another writer since this object's last load or save,
    /// to different values, and wrote this object's values: the later synchronization wins.
    /// Settings only the other writer changed were adopted and reported as ``settingsChanged(_:)``.
    case mergeConflicts([String])
    /// Synced settings (by stored name) changed on this device and, to other values, on another
    /// device since this device and the cloud last agreed: the cloud's values were taken, so
    /// every device ends with the same values (see ``AppSettingsObject/startSyncing(with:)``).
    case syncConflicts([String])
    /// A synced value was not sent to the cloud, or not taken from it: the cloud refuses it
    /// (``AppSettingsError/cloudValueRefused(key:setting:reason:)``; the value is still stored on
    /// this device) or it does not fit its setting
    /// (``AppSettingsError/cloudValueUnreadable(key:setting:reason:)``; the setting keeps its value).
    /// The other synced settings sync as usual.
    case syncFailed(AppSettingsError)
}

extension AppSettingsObject {
    /// Posted on `NotificationCenter.default`, with the settings object as `object`, after
    /// settings changed value. `userInfo[changedSettingNamesKey]` is a `[String]` of their names.
    ///
    /// One assignment posts one notification; ``synchronizeToUserDefaults()`` posts none,
    /// and ``resetToUserDefaults()``, ``resetToDeveloperDefaults()``, ``removeFromUserDefaults()``
    /// and ``update(from:)`` post one naming every setting whose value changed.
    public static let didChangeNotification = Notification.Name("AppSettingsObjectDidChange")

    /// Posted on `NotificationCenter.default`, with a settings object as `object`, when another
    /// instance bound to the same `UserDefaults` and key synchronized or removed the stored set,
    /// or another process synchronized it (noticed within about a second, on another thread).
    /// The object keeps its own values and unsaved changes, unless it
    /// ``reloadsWhenStoredSettingsChange`` and had none.
    public static let storedSettingsDidChangeNotification = Notification.Name(
        "AppSettingsObjectStoredSettingsDidChange")

    /// The `userInfo` key of ``didChangeNotification`` whose value lists the changed settings.
    public static let changedSettingNamesKey = "changedSettingNames"

    /// Every change of this object, as it happens, for as many consumers as you like.
    ///
    /// ```swift
    /// for await change in settings.changes {
    ///     if case .settingsChanged(let names) = change { print("changed:", names) }
    /// }
    /// ```
    ///
    /// Each access returns a new sequence that receives the changes after it was made. A
    /// consumer that falls behind keeps the newest 64 events and never blocks a setter. The
    /// sequence does not keep the object alive; it ends when the object goes away.
    public final var changes: AsyncStream<AppSettingsChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: AppSettingsChange.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let id = UUID()
        _state.withLock { $0.continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?._state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// The values of one setting: the current value first, then each new one.
    ///
    /// ```swift
    /// for await level in settings.values(of: \MySettings.soundLevel) { player.volume = level }
    /// ```
    ///
    /// The sequence does not keep the object alive; it ends when the object goes away. A value
    /// that is set and set back before the consumer looks is not reported.
    public final func values<Root: AppSettingsObject, Value: SettingValue & Sendable>(
        of keyPath: any KeyPath<Root, Value> & Sendable
    ) -> AsyncStream<Value> {
        guard let root = self as? Root else { return AsyncStream { $0.finish() } }
        let changes = self.changes
        let current = root[keyPath: keyPath]
        return AsyncStream(bufferingPolicy: .bufferingNewest(64)) { [weak root] continuation in
            continuation.yield(current)
            let task = Task {
                var last = current
                for await change in changes {
                    guard case .settingsChanged = change else { continue }
                    guard let root else { break }
                    let value = root[keyPath: keyPath]
                    if !Value._isSameSettingValue(last, value) {
                        last = value
                        continuation.yield(value)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Finishes every change sequence; called when the object goes away.
    final func finishChangeSequences() {
        let continuations = _state.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

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
