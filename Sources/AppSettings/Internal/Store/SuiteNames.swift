import Foundation

/// The suites whose names the library knows, and which suite a `UserDefaults` is for.
///
/// Apple platforms make no suite's name public: a `UserDefaults` does not say which suite it
/// reads. The library records the names it is given (`UserDefaults(appGroup:)`, the tool's
/// `--suite`), and finds the suite of any other `UserDefaults` among them by a probe (see
/// `PreferencesDomain+Darwin.swift`), so that one suite has one lock and one notice name whatever
/// initializer made its `UserDefaults`. On Linux corelibs says which suite a `UserDefaults` is
/// for (`DomainLocation`), and these names are not needed.
enum SuiteNames {
    /// A suite's name, and whether it is an App Group's: recorded so in this process, by
    /// `UserDefaults(appGroup:)`.
    struct Identity: Equatable {
        let name: String
        let isAppGroup: Bool
    }

    /// What is known of one `UserDefaults`; weak, so that a new object at the same address is
    /// never taken for it.
    private struct Known {
        weak var userDefaults: UserDefaults?
        /// Its suite; `nil`: probed, and none of the names recorded then (`namesGeneration`).
        let identity: Identity?
        let namesGeneration: Int
    }

    private struct State {
        var byObject: [ObjectIdentifier: Known] = [:]
        /// The names a probe looks among, with whether each is an App Group's.
        var names: [String: Bool] = [:]
        /// Raised whenever a name is added: a `UserDefaults` found in none is probed again.
        var namesGeneration = 0

        mutating func remember(_ userDefaults: UserDefaults, as identity: Identity?, namesGeneration: Int) {
            byObject = byObject.filter { $0.value.userDefaults != nil }
            byObject[ObjectIdentifier(userDefaults)] = Known(
                userDefaults: userDefaults, identity: identity, namesGeneration: namesGeneration)
        }
    }

    private static let state = Protected(State())

    /// Records that `userDefaults` was made for the suite `name`, an App Group's when `appGroup`.
    static func record(_ name: String, appGroup: Bool, for userDefaults: UserDefaults) {
        state.withLock { state in
            let isAppGroup = appGroup || state.names[name] == true
            if state.names[name] != isAppGroup {
                state.names[name] = isAppGroup
                state.namesGeneration += 1
            }
            state.remember(
                userDefaults, as: Identity(name: name, isAppGroup: isAppGroup), namesGeneration: state.namesGeneration)
        }
    }

    /// No longer looks for the suite `name` (`AppSettingsObject.removeSuite(named:)`): a
    /// `UserDefaults` made for it before keeps its identity; one made after is found only once
    /// the name is recorded again. Keeps the names a process probes among to the suites it uses.
    static func forget(_ name: String) {
        state.withLock { state in _ = state.names.removeValue(forKey: name) }
    }

    /// The suite of `userDefaults`: the one it was recorded with, or else the one `probe` finds
    /// among the names recorded (with `extraCandidates`, such as the app's own domain); `nil`
    /// when none. `probe` runs without a lock, at most once per `UserDefaults` and set of names
    /// recorded, and never while no name is recorded.
    static func identity(
        of userDefaults: UserDefaults,
        extraCandidates: [String],
        probe: (UserDefaults, [String]) -> String?
    ) -> Identity? {
        let object = ObjectIdentifier(userDefaults)
        let (known, candidates, generation) = state.withLock { state -> (Identity??, [String: Bool], Int) in
            if let entry = state.byObject[object], entry.userDefaults === userDefaults {
                if let identity = entry.identity { return (.some(identity), [:], 0) }
                if entry.namesGeneration == state.namesGeneration { return (.some(nil), [:], 0) }
            }
            return (nil, state.names, state.namesGeneration)
        }
        if let known { return known }
        guard !candidates.isEmpty else { return nil }
        let names = candidates.keys.sorted()
        let found = probe(userDefaults, names + extraCandidates.filter { candidates[$0] == nil }).map {
            Identity(name: $0, isAppGroup: candidates[$0] ?? false)
        }
        state.withLock { $0.remember(userDefaults, as: found, namesGeneration: generation) }
        return found
    }
}
