import Foundation

// The process-wide registries of settings objects: one `shared` instance per subclass, the live
// objects by key (for the notice to other objects of the same store), and the per-thread switch
// that lets scratch copies skip loading.

/// A weak reference that can live in ``AppSettingsObject/State``.
struct WeakSettingsObject {
    weak var object: AppSettingsObject?
}

/// One instance per subclass, each created under its own lock so that creating one subclass's
/// instance may use another's. A subclass whose initialization reads its own `shared` would wait
/// for itself: that stops with a message instead of a deadlock.
enum SharedInstances {
    private final class Entry: Sendable {
        let instance = Protected<AppSettingsObject?>(nil)
        /// The thread creating the instance, while it does.
        let creator = Protected<pthread_t?>(nil)
    }

    private static let entries = Protected<[ObjectIdentifier: Entry]>([:])

    static func instance(of type: AppSettingsObject.Type, create: () -> AppSettingsObject) -> AppSettingsObject {
        let entry = entries.withLock { entries in
            if let entry = entries[ObjectIdentifier(type)] { return entry }
            let entry = Entry()
            entries[ObjectIdentifier(type)] = entry
            return entry
        }
        if let creator = entry.creator.withLock({ $0 }), pthread_equal(creator, pthread_self()) != 0 {
            preconditionFailure(
                "AppSettings: \(type).shared was read while \(type).shared was being created (in its init, a "
                    + "property initializer or an override such as resetToDeveloperDefaults() or checkAfterDecode()); "
                    + "it would wait for itself forever. Use self there, or read shared after it is created."
            )
        }
        return entry.instance.withLock { instance in
            if let instance { return instance }
            entry.creator.withLock { $0 = pthread_self() }
            defer { entry.creator.withLock { $0 = nil } }
            let created = create()
            instance = created
            return created
        }
    }
}

/// A switch of the current thread, set while a body runs.
final class ThreadFlag: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    var isSet: Bool { pthread_getspecific(key) != nil }

    func whileSet<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}

/// Lets a thread create settings objects that skip loading (scratch copies).
enum LoadSuppression {
    private static let flag = ThreadFlag()

    static var isActive: Bool { flag.isSet }

    static func withSuppressedLoading<T>(_ body: () -> T) -> T {
        flag.whileSet(body)
    }
}

/// Set while this thread holds an object's `_synchronization` (see
/// ``AppSettingsObject/withSynchronizationLock(_:)``): what is posted from there (`UserDefaults`
/// posts `didChangeNotification` for each write on Apple platforms) must not wait for that lock
/// nor call observers, who may synchronize.
enum InsideSynchronization {
    static let flag = ThreadFlag()
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

    static func register(_ object: AppSettingsObject) {
        let key = object.userDefaultsKey
        let live = objects.withLock { objects in
            let live = (objects[key] ?? []).compactMap(\.object)
            objects[key] = (live + [object]).map { WeakSettingsObject(object: $0) }
            return live
        }
        withExtendedLifetime(live) {}
        StoreWatcher.startWatching(object.store)
    }

    static func unregister(_ object: AppSettingsObject) {
        let key = object.userDefaultsKey
        let live = objects.withLock { objects in
            let live = (objects[key] ?? []).compactMap(\.object).filter { $0 !== object }
            objects[key] = live.isEmpty ? nil : live.map { WeakSettingsObject(object: $0) }
            return live
        }
        withExtendedLifetime(live) {}
        StoreWatcher.stopWatching(object.store)
    }

    /// The live objects that `isIncluded` accepts (called outside the lock).
    static func liveObjects(where isIncluded: (AppSettingsObject) -> Bool) -> [AppSettingsObject] {
        let all = objects.withLock { objects in objects.values.flatMap { $0.compactMap(\.object) } }
        return all.filter(isIncluded)
    }

    /// The other live objects of `writer`'s store, found by what it holds now: `stored`.
    static func objects(sharingStoreWith writer: AppSettingsObject, holding stored: Data) -> [AppSettingsObject] {
        let others = objects.withLock { objects in
            (objects[writer.userDefaultsKey] ?? []).compactMap(\.object).filter { $0 !== writer }
        }
        return others.filter { $0.userDefaults === writer.userDefaults || $0.store.holds(stored) }
    }

    /// Tells the other live objects of `writer`'s store (but `excluded`) that it wrote `stored`.
    static func storeDidChange(_ writer: AppSettingsObject, stored: Data, except excluded: AppSettingsObject? = nil) {
        for other in objects(sharingStoreWith: writer, holding: stored) where other !== excluded {
            other.storedSettingsDidChange()
        }
    }
}
