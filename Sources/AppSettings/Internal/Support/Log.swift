import Foundation

#if canImport(os)
    import os
#elseif APPLE_STAND_INS
    import AppleStandIns
#endif

/// Where the library reports what it repaired by itself (a load that kept developer defaults,
/// a recovery from the copy): the unified log on Apple platforms, standard error elsewhere.
enum Log {
    #if canImport(os) || APPLE_STAND_INS
        private static let logger = Logger(subsystem: "AppSettings", category: "storage")

        static func error(_ message: String) {
            logger.error("\(message, privacy: .public)")
        }

        static func notice(_ message: String) {
            logger.notice("\(message, privacy: .public)")
        }
    #else
        static func error(_ message: String) {
            write("AppSettings error: \(message)\n")
        }

        static func notice(_ message: String) {
            write("AppSettings: \(message)\n")
        }

        private static func write(_ text: String) {
            FileHandle.standardError.write(Data(text.utf8))
        }
    #endif
}
