import Foundation
import Observation

/// Settings objects are observable per setting: reading `settings.soundLevel` inside
/// `withObservationTracking` (or a SwiftUI view's `body`) tracks that setting only.
extension AppSettingsObject: Observable {}

extension AppSettingsObject {
    /// Posted on `NotificationCenter.default`, with the settings object as `object`, after
    /// settings changed value. `userInfo[changedSettingNamesKey]` is a `[String]` of their names.
    ///
    /// One assignment posts one notification; ``synchronizeToUserDefaults()`` posts none,
    /// and ``resetToUserDefaults()``, ``resetToDeveloperDefaults()``, ``removeFromUserDefaults()``
    /// and ``update(from:)`` post one naming every setting whose value changed. Changes made while
    /// another thread announces this object's are merged into one notification, once it is done.
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
    /// Each access returns a new sequence that receives the changes after it was made (merged as
    /// ``didChangeNotification`` says). A consumer that falls behind keeps the newest 64 events and
    /// never blocks a setter. The sequence does not keep the object alive; it ends when the object
    /// goes away.
    public final var changes: AsyncStream<AppSettingsChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: AppSettingsChange.self,
            bufferingPolicy: .bufferingNewest(64)
        )
        let id = UUID()
        announcer.addStream(continuation, id: id)
        continuation.onTermination = { [weak self] _ in
            self?.announcer.removeStream(id: id)
        }
        return stream
    }

    /// The values of one setting, for a key path of any settings class (kept for the callers
    /// built against 0.1.0; a key path whose root this object is not ends at once).
    @_disfavoredOverload
    public final func values<Root: AppSettingsObject, Value: SettingValue & Sendable>(
        of keyPath: any KeyPath<Root, Value> & Sendable
    ) -> AsyncStream<Value> {
        guard let root = self as? Root else { return AsyncStream { $0.finish() } }
        return changedValues(of: keyPath, from: root)
    }
}

extension Announcer {
    /// Finishes every change sequence; called when the object goes away.
    func finishChangeSequences() {
        let continuations = _state.withLock { $0.announcements.removeAll() }
        for continuation in continuations { continuation.finish() }
    }
}

extension AppSettingsKeyPathMembers {
    /// The values of one setting: the current value first, then each new one.
    ///
    /// ```swift
    /// for await level in settings.values(of: \.soundLevel) { player.volume = level }
    /// ```
    ///
    /// The key path's root is the object's own class, inferred as for ``source(of:)``
    /// (`\.soundLevel`; `\MySettings.audio.volume` for a nested setting works as well).
    ///
    /// The sequence does not keep the object alive; it ends when the object goes away. A value
    /// that is set and set back before the consumer looks is not reported.
    public func values<Value: SettingValue & Sendable>(
        of keyPath: any KeyPath<Self, Value> & Sendable
    ) -> AsyncStream<Value> {
        changedValues(of: keyPath, from: self)
    }
}

/// The values of the setting at `keyPath` of `root`: the current one, then each change.
private func changedValues<Root: AppSettingsObject, Value: SettingValue & Sendable>(
    of keyPath: any KeyPath<Root, Value> & Sendable,
    from root: Root
) -> AsyncStream<Value> {
    let changes = root.changes
    let current = root[keyPath: keyPath]
    return AsyncStream(bufferingPolicy: .bufferingNewest(64)) { [weak root] continuation in
        continuation.yield(current)
        let task = Task {
            var last = current
            for await change in changes {
                guard case .settingsChanged = change else { continue }
                guard let root else { break }
                let value = root[keyPath: keyPath]
                if !Value.isSameSettingValue(last, value) {
                    last = value
                    continuation.yield(value)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}
