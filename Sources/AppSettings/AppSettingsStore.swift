import Foundation

/// Where a settings object keeps its set: a `UserDefaults` suite, or memory.
///
/// ```swift
/// let settings = MySettings(store: .userDefaults(.standard))   // the same as MySettings()
/// let preview = MySettings(store: .inMemory("preview"))         // never touches the disk
/// ```
///
/// An in-memory store behaves as a suite does: several objects of one store (of one name, in one
/// process) merge per setting when they synchronize and tell each other of saves; revert, reset,
/// remove, documents, overrides and observation work as they do on a suite. Nothing is written to
/// disk, and the values last as long as the process. Use it for SwiftUI previews, for tests (or
/// let the `AppSettingsTesting` library's `.isolatedAppSettings` trait give each test its own),
/// and for settings that should not outlive the process.
public struct AppSettingsStore {
    /// The `UserDefaults` the object is bound to: a real suite, or the in-memory store's.
    let userDefaults: UserDefaults

    private init(userDefaults: UserDefaults) {
        self.userDefaults = userDefaults
    }

    /// The set is stored in `userDefaults`, as ``AppSettingsObject/init(userDefaults:)`` stores it.
    public static func userDefaults(_ userDefaults: UserDefaults) -> AppSettingsStore {
        AppSettingsStore(userDefaults: userDefaults)
    }

    /// The set is kept in this process's memory, in the store named `name`: every object made
    /// with the same name shares it. The store is made at its first use and lasts as long as the
    /// process; ``AppSettingsObject/userDefaults`` of its objects is a `UserDefaults` that reads
    /// and writes the store, never the disk.
    public static func inMemory(_ name: String) -> AppSettingsStore {
        AppSettingsStore(userDefaults: InMemoryUserDefaults(storage: .named(name)))
    }

    /// Whether this is an in-memory store.
    public var isInMemory: Bool { userDefaults is InMemoryUserDefaults }
}

// `UserDefaults` is thread-safe (Foundation documents it so on every platform), though
// swift-corelibs-foundation does not mark it `Sendable`.
extension AppSettingsStore: @unchecked Sendable {}

extension AppSettingsObject {
    /// Creates a settings set kept in `store`: developer defaults first, then what the store
    /// holds, if anything.
    ///
    /// `MySettings(store: .userDefaults(suite))` is `MySettings(userDefaults: suite)`;
    /// `MySettings(store: .inMemory("preview"))` keeps the set in memory (see ``AppSettingsStore``).
    /// Every subclass that declares only settings has this initializer.
    public convenience init(store: AppSettingsStore) {
        self.init(userDefaults: store.userDefaults)
    }

    /// Where this object keeps its set.
    public final var settingsStore: AppSettingsStore { .userDefaults(userDefaults) }
}
