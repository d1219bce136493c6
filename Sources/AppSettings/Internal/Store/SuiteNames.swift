import Foundation

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// The stores the library was told of, by the `UserDefaults` it made or was given for them.
///
/// Apple platforms make no suite's name public: a `UserDefaults` does not say which suite it
/// reads, and the library never writes into a suite to find out. So it keeps what it was told:
/// the `UserDefaults` of each named store it made (`AppSettingsStore.suite(_:)` and
/// `appGroup(_:)`, one per name), of `UserDefaults(appGroup:)` and the tool's `--suite`
/// (`UserDefaults(recordedSuite:)`), and of in-memory stores. `AppSettingsStore.userDefaults(_:)`
/// looks a `UserDefaults` up here; one not found is a store the library cannot name.
enum SuiteNames {
    /// What is known of one `UserDefaults`; weak, so that a new object at the same address is
    /// never taken for it.
    private struct Known {
        weak var userDefaults: UserDefaults?
        let identity: AppSettingsStore.Identity
        let storage: InMemoryStorage?
        let refusal: String?

        func store(of userDefaults: UserDefaults) -> AppSettingsStore {
            AppSettingsStore(identity: identity, userDefaults: userDefaults, storage: storage, refusal: refusal)
        }
    }

    private struct State {
        var byObject: [ObjectIdentifier: Known] = [:]
        /// The names this process declared App Groups: a `UserDefaults(recordedSuite:)` of one of
        /// them is the group's store.
        var appGroups: Set<String> = []
        /// The store made for each name by `AppSettingsStore.suite(_:)` and `appGroup(_:)`.
        var named: [AppSettingsStore.Identity: AppSettingsStore] = [:]

        mutating func remember(_ store: AppSettingsStore) {
            if byObject.count > 64 { byObject = byObject.filter { $0.value.userDefaults != nil } }
            byObject[ObjectIdentifier(store.userDefaults)] = Known(
                userDefaults: store.userDefaults, identity: store.identity, storage: store.storage,
                refusal: store.refusal)
        }
    }

    private static let state = Protected(State())

    /// Records that `userDefaults` was made for the suite `name`, an App Group's when `appGroup`
    /// (or when this process declared `name` an App Group before).
    static func record(_ name: String, appGroup: Bool, for userDefaults: UserDefaults) {
        state.withLock { state in
            if appGroup { state.appGroups.insert(name) }
            let identity: AppSettingsStore.Identity =
                appGroup || state.appGroups.contains(name) ? .appGroup(name) : .suite(name)
            state.remember(AppSettingsStore(identity: identity, userDefaults: userDefaults))
        }
    }

    /// Records an in-memory store's `UserDefaults`.
    static func record(_ store: AppSettingsStore) {
        state.withLock { $0.remember(store) }
    }

    /// The store `userDefaults` was recorded for, or `nil`.
    static func recorded(_ userDefaults: UserDefaults) -> AppSettingsStore? {
        state.withLock { state in
            guard let known = state.byObject[ObjectIdentifier(userDefaults)], known.userDefaults === userDefaults
            else { return nil }
            return known.store(of: userDefaults)
        }
    }

    /// Whether this process declared `name` an App Group (``AppSettingsStore/appGroup(_:)``,
    /// `UserDefaults(appGroup:)`): a suite's store of that name then takes the group's lock file too.
    static func isAppGroup(_ name: String) -> Bool {
        state.withLock { $0.appGroups.contains(name) }
    }

    /// The store of the suite `name`, made once per name and kind: its `UserDefaults`, made with
    /// `UserDefaults(suiteName:)`, is recorded. A name `UserDefaults` refuses, or that breaks
    /// ``StoreNames``' rules, makes a store that refuses every read and write.
    static func store(named name: String, appGroup: Bool) -> AppSettingsStore {
        let identity: AppSettingsStore.Identity = appGroup ? .appGroup(name) : .suite(name)
        if let known = state.withLock({ state -> AppSettingsStore? in
            if appGroup { state.appGroups.insert(name) }
            return state.named[identity]
        }) {
            return known
        }
        let refusal = StoreNames.problem(with: name)
        let made = refusal == nil ? makeUserDefaults(suiteName: name) : nil
        let store = AppSettingsStore(
            identity: identity,
            // A refused store needs a `UserDefaults` too: one of memory, never read by the library.
            userDefaults: made
                ?? InMemoryUserDefaults(storage: InMemoryStorage(name: "refused suite \(name)", suiteName: nil)),
            refusal: made == nil ? refusal ?? "UserDefaults refuses it as a suite name" : nil)
        return state.withLock { state in
            if let known = state.named[identity] { return known }
            state.named[identity] = store
            state.remember(store)
            return store
        }
    }

    /// `UserDefaults(suiteName:)`; in the stand-in build, the model of Apple's (`AppleUserDefaults`).
    private static func makeUserDefaults(suiteName name: String) -> UserDefaults? {
        #if APPLE_STAND_INS
            AppleUserDefaults(suiteName: name)
        #else
            UserDefaults(suiteName: name)
        #endif
    }
}
