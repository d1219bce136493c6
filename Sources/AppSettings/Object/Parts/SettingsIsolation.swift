import Foundation

/// The settings of one isolated scope (a test run with the `AppSettingsTesting` library's
/// `.isolatedAppSettings` trait): a fresh in-memory store and `shared` instances of its own.
///
/// While a scope is current (a task-local value: the scope's task, its child tasks and the tasks
/// they create with `Task { }` see it; `Task.detached`, Dispatch queues and threads do not), every
/// settings object whose store is `.standard` or its class's `sharedStore` is bound to the
/// scope's store instead, and `shared` answers the scope's instance. Stores are compared by what
/// they are (``AppSettingsStore``'s kind and name), not by object: a `sharedStore` or
/// `sharedUserDefaults` that returns a new object at every call is still the same store.
package final class SettingsIsolationScope: Sendable {
    /// For messages: the test's name.
    package let name: String
    let storage: InMemoryStorage
    /// The scope's store, over ``storage``.
    let store: AppSettingsStore
    let sharedInstances = SharedInstances()
    /// Called when an object bound to a store the scope does not own (a real suite the scope
    /// stands in for, or another scope's memory) is loaded, saved or removed inside it.
    let reportOutsideUse: @Sendable (String) -> Void

    package init(name: String, reportOutsideUse: @escaping @Sendable (String) -> Void) {
        self.name = name
        storage = InMemoryStorage(name: "isolated settings of \(name)", suiteName: nil)
        store = AppSettingsStore(
            identity: .isolated(ObjectIdentifier(storage)), userDefaults: InMemoryUserDefaults(storage: storage),
            storage: storage)
        self.reportOutsideUse = reportOutsideUse
    }

    /// Ends the scope: its `shared` instances are released and its store emptied.
    package func end() {
        sharedInstances.removeAll()
        storage.removeAll()
    }

    /// The task-local current scope.
    @TaskLocal package static var current: SettingsIsolationScope?

    /// The store an object of `type` made for `store` is bound to: the current scope's for
    /// `.standard` and the class's `sharedStore` (a suite's store and the App Group's store of the
    /// same name count as one: they hold the same suite), else `store`.
    static func store(for store: AppSettingsStore, of type: AppSettingsObject.Type) -> AppSettingsStore {
        guard let scope = current, scope.standsIn(for: store, of: type) else { return store }
        return scope.store
    }

    /// Whether `store` is one the scope keeps in its memory for objects of `type`.
    private func standsIn(for store: AppSettingsStore, of type: AppSettingsObject.Type) -> Bool {
        guard !store.isInMemory else { return false }
        return store.reachedData == .standard || store.reachedData == type.sharedStore.reachedData
    }

    /// Tells the current scope, if any, that `object` is about to read or write a store the scope
    /// does not own but stands in for: a real suite (the object was made outside the scope) or
    /// another scope's memory (the object was made in another test and carried here).
    static func checkUse(of object: AppSettingsObject) {
        guard let scope = current else { return }
        let store = object.settingsStore
        let objectType = type(of: object)
        let description = "\(objectType) (key \(object.userDefaultsKey))"
        if case .isolated = store.identity {
            guard store != scope.store else { return }
            scope.reportOutsideUse(
                "\(description) was made in the \(store.storage?.name ?? "isolated settings of another test") and "
                    + "is used in the isolated settings of \(scope.name), where it reads and writes the other "
                    + "test's store; make it inside this test (or use \(objectType).shared, which is this test's own)."
            )
            return
        }
        guard scope.standsIn(for: store, of: objectType) else { return }
        scope.reportOutsideUse(
            "\(description) was made outside the isolated settings of \(scope.name) and reads and writes "
                + "\(store) there; make it inside the test (or use \(objectType).shared, which is the test's own)."
        )
    }
}
