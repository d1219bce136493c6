import Foundation

/// The names of the suites the library was told about (`UserDefaults(appGroup:)`):
/// `UserDefaults` does not make a suite's name public on Apple platforms, and the library needs it
/// there to find an App Group's container and to name its notices.
enum SuiteNames {
    /// A suite whose name is known; weak, so that a new object at the same address is never
    /// taken for it.
    private struct Known {
        weak var userDefaults: UserDefaults?
        let name: String
    }

    private static let known = Protected<[ObjectIdentifier: Known]>([:])

    static func record(_ name: String, for userDefaults: UserDefaults) {
        known.withLock { known in
            known = known.filter { $0.value.userDefaults != nil }
            known[ObjectIdentifier(userDefaults)] = Known(userDefaults: userDefaults, name: name)
        }
    }

    static func name(of userDefaults: UserDefaults) -> String? {
        known.withLock { known in
            guard let entry = known[ObjectIdentifier(userDefaults)], entry.userDefaults === userDefaults else {
                return nil
            }
            return entry.name
        }
    }
}
