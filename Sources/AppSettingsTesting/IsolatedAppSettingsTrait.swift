import AppSettings
import Testing

/// A trait that gives each test its own settings, kept in memory.
///
/// Inside a test with this trait (on the test, or on its suite), every settings object whose store
/// is `.standard` or its class's `sharedStore` (its `sharedUserDefaults` suite: so `MySettings()`,
/// `MySettings.shared` and an App Group class's `MySettings(store: .appGroup(…))`) reads and writes
/// a fresh in-memory store of that test; `shared` is that test's own instance. Stores are compared
/// by what they are, not by object: a `sharedUserDefaults` that makes a new
/// `UserDefaults(appGroup:)` at every call is the same store each time. Tests that run in parallel, and the arguments of a parameterized test,
/// never see each other's settings, and nothing is left when the test ends:
///
/// ```swift
/// import AppSettings
/// import AppSettingsTesting
/// import Testing
///
/// @Suite(.isolatedAppSettings) struct SettingsScreenTests {
///     @Test func startsFromDeveloperDefaults() throws {
///         #expect(MySettings.shared.soundLevel == 0.7)
///         MySettings.shared.soundLevel = 0.2
///         try MySettings.shared.synchronizeToUserDefaults()
///         #expect(MySettings().soundLevel == 0.2)
///     }
/// }
/// ```
///
/// The scope is the test's task and the tasks it starts with `Task { }` or structured
/// concurrency. Work on a Dispatch queue, a thread or a detached task is outside it and sees the
/// real store. An object made outside the scope (a global, or `shared` read before the test)
/// that loads, saves or removes its set inside it is reported as an issue of the test: it would
/// write the real `UserDefaults`. So is an object made in another test's scope (kept in a
/// `static`, say) and used in this one: it would read and write the other test's store.
///
/// Objects made for any other store keep the store they were given. A `UserDefaults` the library
/// cannot name (made with `UserDefaults(suiteName:)`) is the class's suite only when it is the very
/// object `sharedUserDefaults` returns.
public struct IsolatedAppSettingsTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite, and to each argument of a parameterized test.
    public var isRecursive: Bool { true }

    /// Runs the test (or each of its cases) with settings of its own.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let sourceLocation = test.sourceLocation
        let scope = SettingsIsolationScope(name: test.name) { message in
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        defer { scope.end() }
        try await SettingsIsolationScope.$current.withValue(scope) {
            try await function()
        }
    }
}

extension Trait where Self == IsolatedAppSettingsTrait {
    /// Each test gets its own settings in memory: `shared` and objects whose store is `.standard`
    /// or the class's `sharedStore` use a fresh in-memory store of the test (see
    /// ``IsolatedAppSettingsTrait``).
    public static var isolatedAppSettings: Self { Self() }
}
