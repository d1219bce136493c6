import Testing

@testable import AppSettings

/// A trait for suites whose tests provoke the library's log lines (damaged sets, merge conflicts,
/// ignored overrides): each test's lines are captured instead of written, so that a passing run
/// prints only what nobody asked for. A test reads its own with ``CapturedLibraryLog/lines``.
struct CapturedLibraryLog: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await LogCapture.$current.withValue(LogCapture()) { try await function() }
    }

    /// The library's lines the current test wrote so far.
    static var lines: [String] { LogCapture.current?.messages ?? [] }
}

extension Trait where Self == CapturedLibraryLog {
    /// Captures each test's library log lines (see ``CapturedLibraryLog``).
    static var capturedLibraryLog: Self { Self() }
}
