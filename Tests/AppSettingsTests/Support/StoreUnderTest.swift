import Foundation
import Testing

@testable import AppSettings

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// The stores the compatibility suite (`StoreCompatibilityTests`) runs over: every storage domain
/// of this build, made as an app makes it. On Linux a suite, an App Group's suite and an unnamed
/// `UserDefaults` are the Linux preferences domain (`PreferencesDomain+Linux.swift`); in the
/// Apple-model build (IntegrationTests/AppleBranches) they are the Apple one
/// (`PreferencesDomain+Darwin.swift`) over the model of Apple's `UserDefaults`. Memory is
/// `InMemoryDomain` in both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case suite
    case appGroup
    /// A `UserDefaults` of a suite the library was not told the name of.
    case unnamed

    var testDescription: String {
        #if APPLE_STAND_INS
            let preferences = "Apple preferences (model)"
        #else
            let preferences = "Linux preferences"
        #endif
        switch self {
        case .inMemory: return "in memory"
        case .suite: return "a suite, \(preferences)"
        case .appGroup: return "an App Group, \(preferences)"
        case .unnamed: return "an unnamed UserDefaults, \(preferences)"
        }
    }

    /// The kinds whose domain is a file the library writes itself (Linux): one a power loss or
    /// another program can leave damaged.
    static var withLibraryWrittenDomainFile: [StoreKind] {
        #if os(Linux) && !APPLE_STAND_INS
            [.suite, .appGroup, .unnamed]
        #else
            []
        #endif
    }
}

/// A fresh store of one kind, uniquely named, removed when released.
final class StoreUnderTest: @unchecked Sendable {
    let kind: StoreKind
    let name: String
    let store: AppSettingsStore

    init(_ kind: StoreKind) {
        self.kind = kind
        name = (kind == .appGroup ? "group." : "") + "StoreCompatibilityTests-" + UUID().uuidString
        store = Self.store(of: kind, named: name)
    }

    private static func store(of kind: StoreKind, named name: String) -> AppSettingsStore {
        switch kind {
        case .inMemory: .inMemory(name)
        case .suite: .suite(name)
        case .appGroup: .appGroup(name)
        case .unnamed: .userDefaults(makeUserDefaults(suiteNamed: name))
        }
    }

    /// `UserDefaults(suiteName:)`; on the model of Apple's behaviour, one that behaves as Apple's.
    static func makeUserDefaults(suiteNamed name: String) -> UserDefaults {
        #if APPLE_STAND_INS
            AppleUserDefaults(suiteName: name)!
        #else
            UserDefaults(suiteName: name)!
        #endif
    }

    /// The same store, made again as the app makes it (for an unnamed `UserDefaults`: of the
    /// same object, the only way to name it again).
    func again() -> AppSettingsStore {
        kind == .unnamed ? .userDefaults(store.userDefaults) : Self.store(of: kind, named: name)
    }

    /// A store of the same kind that is not this one: another name, or for an unnamed
    /// `UserDefaults` another object of the same suite.
    func another() -> AppSettingsStore {
        kind == .unnamed ? Self.store(of: kind, named: name) : Self.store(of: kind, named: name + "-other")
    }

    deinit {
        do {
            // A suite's name removes what an unnamed `UserDefaults` of it wrote too.
            try (kind == .unnamed ? AppSettingsStore.suite(name) : store).remove()
            for name in [name, name + "-other"] where kind == .inMemory { InMemoryStorage.remove(named: name) }
        } catch {
            FileHandle.standardError.write(Data("StoreUnderTest: \(error)\n".utf8))
        }
    }

    /// Stores `values` as the app's own code does: through the store's `UserDefaults`, flushed.
    func setOthers(_ values: [String: Any]) {
        for (key, value) in values { store.userDefaults.set(value, forKey: key) }
        store.userDefaults.synchronize()
    }

    /// Every key the store holds and its value, read as another process would, not through the
    /// library: the domain's file (the Linux one, or where the model of Apple's keeps it), or the
    /// in-memory store's values.
    func everything() throws -> [String: Any] {
        if kind == .inMemory { return InMemoryStorage.named(name).all }
        #if APPLE_STAND_INS
            let defaults = try #require(store.userDefaults as? AppleUserDefaults)
            // Waits for the model's writes to reach the file.
            _ = defaults.synchronize()
            let file = try #require(defaults.preferencesFileURL)
        #else
            let file = try #require(store.domainFileURL)
        #endif
        guard FileManager.default.fileExists(atPath: file.path) else { return [:] }
        let data = try Data(contentsOf: file)
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    /// The values other code of an app keeps in a suite beside its settings: one of each
    /// property-list type, a backup of another set, another library's set.
    static var others: [String: Any] {
        [
            "plain": "the app's own",
            "count": 42,
            "ratio": 0.25,
            "flag": true,
            "when": Date(timeIntervalSince1970: 1_700_000_000),
            "list": ["a", "b"],
            "nested": ["a": 1, "b": [true, false]] as [String: Any],
            "bytes": Data([1, 2, 3]),
            "AppSettings.Other": Data("another set's bytes".utf8),
            "AppSettings.Other.unreadable-1700000000000": Data("a backup of another set".utf8),
        ]
    }
}

/// Whether two property-list values are equal (as `NSObject`s: a Swift `Int` equals the `NSNumber`
/// read back from a file).
func samePropertyList(_ lhs: Any, _ rhs: Any) -> Bool {
    NSArray(array: [lhs]).isEqual(to: [rhs])
}
