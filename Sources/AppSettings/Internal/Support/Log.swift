import Foundation

#if canImport(os)
    import os
#endif

/// Where the library reports what it repaired by itself (a load that kept developer defaults,
/// a recovery from the copy): the unified log on Apple platforms, standard error elsewhere.
enum Log {
    #if canImport(os)
        private static let logger = Logger(subsystem: "AppSettings", category: "storage")
    #endif

    static func error(_ message: String) {
        #if canImport(os)
            logger.error("\(message, privacy: .public)")
        #else
            write("AppSettings error: \(message)\n")
        #endif
    }

    static func notice(_ message: String) {
        #if canImport(os)
            logger.notice("\(message, privacy: .public)")
        #else
            write("AppSettings: \(message)\n")
        #endif
    }

    #if !canImport(os)
        private static func write(_ text: String) {
            FileHandle.standardError.write(Data(text.utf8))
        }
    #endif
}
