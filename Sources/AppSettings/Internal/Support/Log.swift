import Foundation

#if canImport(os)
    import os
#elseif APPLE_STAND_INS
    import AppleStandIns
#endif

/// Where the library reports what it repaired by itself (a load that kept developer defaults,
/// a recovery from the copy): the unified log on Apple platforms, standard error elsewhere; or,
/// inside ``LogCapture/capturing(_:)`` (the `AppSettingsTesting` library's
/// `AppSettingsLog.capture`), the capture of that task.
enum Log {
    static func error(_ message: String) { log(message, isError: true) }

    static func notice(_ message: String) { log(message, isError: false) }

    private static func log(_ message: String, isError: Bool) {
        let line = (isError ? "AppSettings error: " : "AppSettings: ") + message
        if let capture = LogCapture.current {
            capture.append(line)
            return
        }
        #if canImport(os) || APPLE_STAND_INS
            if isError {
                logger.error("\(message, privacy: .public)")
            } else {
                logger.notice("\(message, privacy: .public)")
            }
        #else
            FileHandle.standardError.write(Data((line + "\n").utf8))
        #endif
    }

    #if canImport(os) || APPLE_STAND_INS
        private static let logger = Logger(subsystem: "AppSettings", category: "storage")
    #endif
}

/// The library's log lines of one task and the tasks it starts, kept instead of written.
package final class LogCapture: Sendable {
    private let lines = Protected<[String]>([])

    package init() {}

    /// The lines captured so far, oldest first, each as it would have been written
    /// (`"AppSettings error: …"` or `"AppSettings: …"`).
    package var messages: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    /// The capture of the current task, if any.
    @TaskLocal package static var current: LogCapture?

    /// Runs `body`, on one of the library's own threads, logging for `object`: into the capture
    /// of the task that made it, if any.
    static func logging<T>(for object: AppSettingsObject, _ body: () throws -> T) rethrows -> T {
        guard let capture = object.binding.logCapture, current == nil else { return try body() }
        return try $current.withValue(capture, operation: body)
    }
}
