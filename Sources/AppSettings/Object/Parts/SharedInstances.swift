import Foundation

/// One instance per subclass, each created under its own lock so that creating one subclass's
/// instance may use another's. A subclass whose initialization reads its own `shared` would wait
/// for itself: that stops with a message instead of a deadlock.
///
/// The process has one registry (``process``); each `.isolatedAppSettings` scope has its own, so
/// that a test's `shared` is that test's.
final class SharedInstances: Sendable {
    private final class Entry: Sendable {
        let instance = Protected<AppSettingsObject?>(nil)
        /// The thread creating the instance, while it does.
        let creator = Protected<pthread_t?>(nil)
    }

    private let entries = Protected<[ObjectIdentifier: Entry]>([:])

    /// The registry of the process (outside any isolation scope).
    static let process = SharedInstances()

    func instance(of type: AppSettingsObject.Type, create: () -> AppSettingsObject) -> AppSettingsObject {
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

    /// Forgets every instance (released outside the lock: a `deinit` takes other locks).
    func removeAll() {
        let removed = entries.withLock { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        let instances = removed.map { entry in entry.instance.withLock { $0.take() } }
        withExtendedLifetime(instances) {}
    }
}
