import Foundation

/// Where a settings object keeps its set: a `UserDefaults` suite named by you, an App Group's
/// suite, the app's own defaults, or memory.
///
/// ```swift
/// let settings = MySettings(store: .standard)                        // the same as MySettings()
/// let separate = MySettings(store: .suite("com.example.settings"))   // a suite of its own
/// let shared = MySettings(store: .appGroup("group.com.example.app")) // shared with extensions
/// let preview = MySettings(store: .inMemory("preview"))              // never touches the disk
/// ```
///
/// A store knows what it is: its kind and its name. Two stores are equal when they are the same
/// kind of store with the same name (`.suite("a") == .suite("a")`, whatever object made each), so
/// the library never has to find out which suite a `UserDefaults` reads: it is told.
///
/// Each kind says how its writers are serialized and who hears of their writes: see
/// ``appGroup(_:)``, ``suite(_:)``, ``userDefaults(_:)`` (a `UserDefaults` the library cannot
/// name) and ``inMemory(_:)`` (a suite without disk: for SwiftUI previews, tests, or settings that
/// should not outlive the process; the `AppSettingsTesting` library's `.isolatedAppSettings` trait
/// gives each test its own).
public struct AppSettingsStore {
    /// What a store is: its kind and name. Stores are equal when their identities are.
    enum Identity: Hashable, Sendable {
        /// The app's own defaults, `UserDefaults.standard`.
        case standard
        /// A suite, by its name.
        case suite(String)
        /// An App Group's suite, by the group's identifier.
        case appGroup(String)
        /// A `UserDefaults` the library cannot name: only this object is this store.
        case unnamed(ObjectIdentifier)
        /// An in-memory store of this name.
        case inMemory(String)
        /// The in-memory store of one `.isolatedAppSettings` scope (its storage).
        case isolated(ObjectIdentifier)
    }

    let identity: Identity
    /// The `UserDefaults` the object is bound to: a real suite, or the in-memory store's.
    let userDefaults: UserDefaults
    /// The values of an in-memory store.
    let storage: InMemoryStorage?
    /// Why nothing can be read or written here (a suite name `UserDefaults` refuses, or that breaks
    /// the library's rules for names), or `nil`.
    let refusal: String?

    init(identity: Identity, userDefaults: UserDefaults, storage: InMemoryStorage? = nil, refusal: String? = nil) {
        self.identity = identity
        self.userDefaults = userDefaults
        self.storage = storage
        self.refusal = refusal
    }

    /// The app's own defaults, `UserDefaults.standard`: where ``AppSettingsObject/shared`` and
    /// `MySettings()` keep their set unless told otherwise.
    public static var standard: AppSettingsStore {
        AppSettingsStore(identity: .standard, userDefaults: .standard)
    }

    /// The `UserDefaults` suite named `name` (`UserDefaults(suiteName: name)`).
    ///
    /// Writers of this process take turns on each set of the suite; its notices reach this app's
    /// other processes. For a suite an app shares with its extensions, use ``appGroup(_:)``. A name
    /// `UserDefaults` refuses (`NSGlobalDomain`, on Apple platforms the app's own bundle identifier)
    /// or that breaks the library's rules (empty, a `/`, `..`, a NUL, over 200 bytes) makes a store
    /// that reads nothing and refuses every save with ``AppSettingsError/invalidSuiteName(name:reason:)``.
    public static func suite(_ name: String) -> AppSettingsStore {
        SuiteNames.store(named: name, appGroup: false)
    }

    /// The suite of the App Group `identifier`, shared by an app and its extensions.
    ///
    /// Each write takes a lock file in the group's container (created at the first write, not
    /// when an object is made), under a background-task assertion, so that the app and its
    /// extensions take turns; its notices name the group, so every process of the group hears of
    /// writes. The identifier is the group's as its entitlement spells it: `group.` followed by a
    /// name (`group.com.example.app`) on every platform, or on macOS also your team identifier, a
    /// dot and a name (`ABCDE12345.com.example.app`).
    ///
    /// ```swift
    /// final class SharedSettings: AppSettingsObject, @unchecked Sendable {
    ///     @Setting var widgetTheme = "light"
    ///     override class var sharedStore: AppSettingsStore { .appGroup("group.com.example.app") }
    /// }
    /// ```
    public static func appGroup(_ identifier: String) -> AppSettingsStore {
        SuiteNames.store(named: identifier, appGroup: true)
    }

    /// The set is stored in `userDefaults`, as ``AppSettingsObject/init(userDefaults:)`` stores it.
    ///
    /// The store is named when the library knows what `userDefaults` is: `.standard`, a
    /// `UserDefaults(appGroup:)`, the ``AppSettingsObject/userDefaults`` of an object of a named or
    /// in-memory store. Any other `UserDefaults` (one made with `UserDefaults(suiteName:)`, say)
    /// cannot be named: its writers are serialized within this process only, its notices reach
    /// only this app's processes, and it is equal only to a store of the same object. Name such a
    /// suite with ``suite(_:)`` or ``appGroup(_:)`` instead.
    public static func userDefaults(_ userDefaults: UserDefaults) -> AppSettingsStore {
        if userDefaults === UserDefaults.standard { return .standard }
        if let recorded = SuiteNames.recorded(userDefaults) { return recorded }
        return AppSettingsStore(identity: .unnamed(ObjectIdentifier(userDefaults)), userDefaults: userDefaults)
    }

    /// The set is kept in this process's memory, in the store named `name`: every object made
    /// with the same name shares it. The store is made at its first use and lasts as long as the
    /// process; ``AppSettingsObject/userDefaults`` of its objects is a `UserDefaults` that reads
    /// and writes the store, never the disk.
    public static func inMemory(_ name: String) -> AppSettingsStore {
        let storage = InMemoryStorage.named(name)
        return AppSettingsStore(
            identity: .inMemory(name), userDefaults: InMemoryUserDefaults(storage: storage), storage: storage)
    }

    /// Whether this is an in-memory store.
    public var isInMemory: Bool { storage != nil }

    /// The name of the suite this store keeps its set in: the suite's for ``suite(_:)``, the
    /// group's for ``appGroup(_:)``; `nil` for the app's own defaults, memory, and a
    /// `UserDefaults` the library cannot name.
    public var suiteName: String? {
        switch identity {
        case .suite(let name), .appGroup(let name): name
        default: nil
        }
    }

    /// Whether this is an App Group's store (``appGroup(_:)``, or a `UserDefaults(appGroup:)`).
    public var isAppGroup: Bool {
        if case .appGroup = identity { return true }
        return false
    }

    /// What the store reaches: a suite's store and the App Group's store of the same name keep
    /// their sets in the same suite.
    var reachedData: Identity {
        if case .appGroup(let name) = identity { return .suite(name) }
        return identity
    }
}

extension AppSettingsStore: Equatable, Hashable {
    /// Equal when both are the same kind of store with the same name (for a `UserDefaults` the
    /// library cannot name: the same object).
    public static func == (lhs: AppSettingsStore, rhs: AppSettingsStore) -> Bool { lhs.identity == rhs.identity }

    /// Hashes what the store is: its kind and name.
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }
}

extension AppSettingsStore: CustomStringConvertible {
    /// The store as you would write it: `.suite("com.example.settings")`, `.standard`.
    public var description: String {
        switch identity {
        case .standard: ".standard"
        case .suite(let name): ".suite(\"\(name)\")"
        case .appGroup(let name): ".appGroup(\"\(name)\")"
        case .unnamed: ".userDefaults(<a UserDefaults whose suite the library cannot name>)"
        case .inMemory(let name): ".inMemory(\"\(name)\")"
        case .isolated: "the in-memory store of \(storage?.name ?? "an isolated test")"
        }
    }
}

// `UserDefaults` is thread-safe (Foundation documents it so on every platform), though
// swift-corelibs-foundation does not mark it `Sendable`; the rest is immutable.
extension AppSettingsStore: @unchecked Sendable {}

extension AppSettingsObject {
    /// Creates a settings set kept in `store`: developer defaults first, then what the store
    /// holds, if anything.
    ///
    /// `MySettings(store: .suite("com.example.settings"))` keeps the set in that suite,
    /// `MySettings(store: .appGroup("group.com.example.app"))` in the App Group's, shared with the
    /// app's extensions; `MySettings(store: .inMemory("preview"))` keeps the set in memory (see
    /// ``AppSettingsStore``). Every subclass that declares only settings has this initializer.
    public convenience init(store: AppSettingsStore) {
        // The store's `UserDefaults` is one the library knows (`SuiteNames`): `init(userDefaults:)`
        // finds this store again from it.
        self.init(userDefaults: store.userDefaults)
    }

    /// Where this object keeps its set.
    public final var settingsStore: AppSettingsStore { binding.store.location }
}
