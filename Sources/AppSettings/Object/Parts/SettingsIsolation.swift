import Foundation

/// The settings of one isolated scope (a test run with the `AppSettingsTesting` library's
/// `.isolatedAppSettings` trait): a fresh in-memory store and `shared` instances of its own.
///
/// While a scope is current (a task-local value: the scope's task, its child tasks and the tasks
/// they create with `Task { }` see it; `Task.detached`, Dispatch queues and threads do not), every
/// settings object made for `UserDefaults.standard` or for its class's `sharedUserDefaults` is
/// bound to the scope's store instead, and `shared` answers the scope's instance.
package final class SettingsIsolationScope: Sendable {
    /// For messages: the test's name.
    package let name: String
    let storage: InMemoryStorage
    let sharedInstances = SharedInstances()
    /// Called when an object made outside the scope, bound to a real suite, is loaded, saved or
    /// removed inside it.
    let reportOutsideUse: @Sendable (String) -> Void

    package init(name: String, reportOutsideUse: @escaping @Sendable (String) -> Void) {
        self.name = name
        storage = InMemoryStorage(name: "isolated settings of \(name)", suiteName: nil)
        self.reportOutsideUse = reportOutsideUse
    }

    /// Ends the scope: its `shared` instances are released and its store emptied.
    package func end() {
        sharedInstances.removeAll()
        storage.removeAll()
    }

    /// The task-local current scope.
    @TaskLocal package static var current: SettingsIsolationScope?

    /// The `UserDefaults` an object of `type` made for `userDefaults` is bound to: the current
    /// scope's store for `.standard` and the class's `sharedUserDefaults`, else `userDefaults`.
    static func userDefaults(
        for userDefaults: UserDefaults,
        of type: AppSettingsObject.Type
    ) -> UserDefaults {
        guard let scope = current, !(userDefaults is InMemoryUserDefaults),
            userDefaults === UserDefaults.standard || userDefaults === type.sharedUserDefaults
        else { return userDefaults }
        return InMemoryUserDefaults(storage: scope.storage)
    }

    /// Tells the current scope, if any, that `object`, bound to a real suite that the scope
    /// stands in for, is about to read or write it.
    static func checkUse(of object: AppSettingsObject) {
        guard let scope = current, !(object.userDefaults is InMemoryUserDefaults) else { return }
        let userDefaults = object.userDefaults
        guard userDefaults === UserDefaults.standard || userDefaults === type(of: object).sharedUserDefaults else {
            return
        }
        scope.reportOutsideUse(
            "\(type(of: object)) (key \(object.userDefaultsKey)) was made outside the isolated settings of "
                + "\(scope.name) and reads and writes the real UserDefaults there; make it inside the test "
                + "(or use \(type(of: object)).shared, which is the test's own)."
        )
    }
}
