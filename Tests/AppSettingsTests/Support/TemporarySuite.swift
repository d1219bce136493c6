import Foundation

@testable import AppSettings

#if APPLE_STAND_INS
    import AppleStandIns
#endif

/// A fresh, uniquely named `UserDefaults` suite that removes itself (its domain file and the
/// library's recovery copies) when released. Every test makes its own, so tests run in parallel.
///
/// Suites whose tests are about settings rather than files take ``forSettings()``: an in-memory
/// store, so that a plain `swift test` writes nothing for them; with
/// `APPSETTINGS_TESTS_STORE=userDefaults` (as `.ci/run`'s temporary-HOME run sets it) the same
/// tests run on real suites, so the two stores cannot quietly differ.
final class TemporarySuite: @unchecked Sendable {
    let name: String
    let userDefaults: UserDefaults
    let isInMemory: Bool

    /// A suite of its own, named `prefix` and a fresh identifier (`group.` for an App Group's name).
    init(inMemory: Bool = false, prefix: String = "AppSettingsTests-") {
        name = prefix + UUID().uuidString
        isInMemory = inMemory
        userDefaults = inMemory ? InMemoryUserDefaults(storage: .named(name)) : Self.userDefaults(suiteNamed: name)
    }

    /// A suite for tests about settings, not files: in memory, unless the environment asks for
    /// real suites. On the model of Apple's behaviour (IntegrationTests/AppleBranches) every suite
    /// is a real one, behaving as Apple's.
    static func forSettings() -> TemporarySuite {
        #if APPLE_STAND_INS
            TemporarySuite(inMemory: false)
        #else
            TemporarySuite(inMemory: ProcessInfo.processInfo.environment["APPSETTINGS_TESTS_STORE"] != "userDefaults")
        #endif
    }

    /// A `UserDefaults` of the suite; on the model of Apple's behaviour, one that behaves as Apple's.
    private static func userDefaults(suiteNamed name: String) -> UserDefaults {
        #if APPLE_STAND_INS
            AppleUserDefaults(suiteName: name)!
        #else
            UserDefaults(suiteName: name)!
        #endif
    }

    deinit {
        if isInMemory {
            InMemoryStorage.remove(named: name)
        } else {
            Self.remove(suiteNamed: name)
        }
    }

    /// Removes a suite's domain and the library's files for it; a failure is reported on
    /// standard error (a `deinit` cannot fail the test that owned the suite).
    static func remove(suiteNamed name: String) {
        do {
            try AppSettingsStore.suite(name).remove()
        } catch {
            FileHandle.standardError.write(Data("TemporarySuite: \(error)\n".utf8))
        }
    }

    /// The raw value under `key`, read from disk as another process would see it.
    func storedObject(forKey key: String) -> Any? {
        userDefaults.synchronize()
        return userDefaults.object(forKey: key)
    }

    /// A second `UserDefaults` instance for the same suite.
    func another() -> UserDefaults {
        isInMemory ? InMemoryUserDefaults(storage: .named(name)) : Self.userDefaults(suiteNamed: name)
    }
}

/// Runs `body` with the name and `UserDefaults` of a fresh `TemporarySuite`, removed afterwards:
/// for tests that hand the suite's name to another process.
func withProcessSuite(_ body: (String, UserDefaults) throws -> Void) throws {
    let suite = TemporarySuite()
    try withExtendedLifetime(suite) { try body(suite.name, suite.userDefaults) }
}
