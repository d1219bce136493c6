import AppSettings

/// The library's log, as a test sees it.
///
/// The library writes what it repaired by itself (a load that kept developer defaults, a value
/// backed up, an override it ignored) to the unified log on Apple platforms and to standard error
/// elsewhere. A test that provokes such a line can capture it instead, and check it:
///
/// ```swift
/// let (_, lines) = AppSettingsLog.capture {
///     _ = MySettings()   // loads a damaged set
/// }
/// #expect(lines.contains { $0.contains("could not be read") })
/// ```
///
/// The capture is a task-local value: lines written by the closure's task and the tasks it starts
/// are captured; lines written on other threads (a Dispatch queue, the store watcher's thread) are
/// written as usual.
public enum AppSettingsLog {
    /// Runs `body`, keeping the library's log lines it writes; returns its result and the lines,
    /// oldest first.
    public static func capture<Result>(_ body: () throws -> Result) rethrows -> (Result, [String]) {
        let capture = LogCapture()
        let result = try LogCapture.$current.withValue(capture) { try body() }
        return (result, capture.messages)
    }

    /// Runs `body`, keeping the library's log lines it and the tasks it starts write; returns its
    /// result and the lines, oldest first.
    public static func capture<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> (Result, [String]) {
        let capture = LogCapture()
        let result = try await LogCapture.$current.withValue(capture) { try await body() }
        return (result, capture.messages)
    }
}
