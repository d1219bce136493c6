import Foundation

/// A weak reference that can live in ``AppSettingsObject/State``.
struct WeakSettingsObject {
    weak var object: AppSettingsObject?
}

/// The live (published, not nested) settings objects of this process by key, so that a
/// synchronization can tell the other instances of the same suite and key.
///
/// Two objects share a store when they have the same key and their `UserDefaults` hold the same
/// domain. `UserDefaults` does not make a suite's name public, and on Apple platforms two
/// `UserDefaults(suiteName:)` objects of one suite are different objects, so the same test serves
/// every platform: after a write, another object of the key is told when its `UserDefaults` is
/// the writer's or holds exactly what was written.
enum StoreRegistry {
    private static let objects = Protected<[String: [WeakSettingsObject]]>([:])

    // Reading a weak reference makes a strong one; if it is the last when released, the object's
    // `deinit` runs and unregisters it, taking the lock again. So the live objects are taken out
    // of the lock and released after it.

    /// Other processes' writes, as the store watcher reports them (its one handler).
    private static let watcherHandler: Void = StoreWatcher.reportChanges(to: storesChangedElsewhere)

    /// Tells the live objects of the stores `change` concerns what they hold now, unless this
    /// process wrote it.
    private static func storesChangedElsewhere(_ change: StoreWatcher.Change) {
        for object in liveObjects(where: { change.concerns($0.binding.store) }) {
            // The suite changed: what the Settings app wrote under the keys it shows, if anything.
            LogCapture.logging(for: object) { object.settingsApp.suiteDidChange() }
            switch change.contents(object.binding.store) {
            case .nothing:
                continue
            case .unreadable:
                LogCapture.logging(for: object) { object.ledger.storedSettingsDidChange(inAnotherProcess: nil) }
            case .bytes(let stored):
                guard !StoreWatcher.isOwnWrite(stored) else { continue }
                LogCapture.logging(for: object) { object.ledger.storedSettingsDidChange(inAnotherProcess: stored) }
            }
        }
    }

    /// Makes a finished scratch object a live one: other code may see it, and the registry does.
    static func publish(_ object: AppSettingsObject) {
        object.isPublished = true
        register(object)
    }

    private static func register(_ object: AppSettingsObject) {
        _ = watcherHandler
        let key = object.userDefaultsKey
        let live = objects.withLock { objects in
            let live = (objects[key] ?? []).compactMap(\.object)
            objects[key] = (live + [object]).map { WeakSettingsObject(object: $0) }
            return live
        }
        withExtendedLifetime(live) {}
        StoreWatcher.startWatching(object.binding.store)
        if object.settingsApp.showsAny {
            SettingsAppForegroundWatcher.start()
            SettingsBundlePage.reportUnreachableStore(of: object)
        }
    }

    static func unregister(_ object: AppSettingsObject) {
        let key = object.userDefaultsKey
        let live = objects.withLock { objects in
            let live = (objects[key] ?? []).compactMap(\.object).filter { $0 !== object }
            objects[key] = live.isEmpty ? nil : live.map { WeakSettingsObject(object: $0) }
            return live
        }
        withExtendedLifetime(live) {}
        StoreWatcher.stopWatching(object.binding.store)
    }

    /// The live objects that `isIncluded` accepts (called outside the lock).
    static func liveObjects(where isIncluded: (AppSettingsObject) -> Bool) -> [AppSettingsObject] {
        let references = objects.withLock { objects in objects.values.flatMap { $0 } }
        // One object made strong at a time: one that `isIncluded` refuses is let go at once, so
        // that a look at every live object holds no other object longer than it takes to ask.
        var included: [AppSettingsObject] = []
        for reference in references {
            guard let object = reference.object else { continue }
            if isIncluded(object) { included.append(object) }
        }
        return included
    }

    /// The other live objects of `writer`'s store, found by what it holds now: `stored`.
    static func objects(sharingStoreWith writer: AppSettingsObject, holding stored: Data) -> [AppSettingsObject] {
        let others = objects.withLock { objects in
            (objects[writer.userDefaultsKey] ?? []).compactMap(\.object).filter { $0 !== writer }
        }
        return others.filter { $0.settingsStore == writer.settingsStore || $0.binding.store.holds(stored) }
    }

    /// The stored base of another live object of `object`'s class and key that loaded or saved
    /// exactly `data`, whole (nothing in it unreadable), for a load of the same bytes.
    static func storedBase(for object: AppSettingsObject, holding data: Data) -> StoredBase? {
        let others = objects.withLock { objects in
            (objects[object.userDefaultsKey] ?? []).compactMap(\.object)
        }
        for other in others where other !== object && type(of: other) == type(of: object) {
            let base = other.ledger.storedBase
            if base.unreadable == nil, base.data == data { return base }
        }
        return nil
    }

    /// Tells the other live objects of `writer`'s store (but `excluded`) that it wrote `stored`.
    static func storeDidChange(_ writer: AppSettingsObject, stored: Data, except excluded: AppSettingsObject? = nil) {
        for other in objects(sharingStoreWith: writer, holding: stored) where other !== excluded {
            other.ledger.storedSettingsDidChange()
        }
    }
}
