// Apple platforms: whether protected data is available, told by a public signal: a small file of
// the library's own, created with `FileProtectionType.completeUntilFirstUserAuthentication`.
// Apple: such a file "cannot be accessed until after the device has booted. After the user unlocks
// the device for the first time, your app can access the file and continue to access it even if
// the user subsequently locks the device" (documentation/foundation/fileprotectiontype/
// completeuntilfirstuserauthentication). The preferences daemon's files are under the same class
// ("NSUserDefaults is ultimately backed by a file in your app's container and your app's container
// is subject to data protection ... so you can't access it prior to first unlock", Apple DTS,
// developer forums thread 15685), and where the daemon keeps them "is not considered part of that
// API" (Apple DTS): the library never reads them.
#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation
    #if APPLE_STAND_INS
        import AppleStandIns
    #endif

    enum ProtectedData {
        /// The directory of the library's file: the app's (or the extension's) own Application
        /// Support directory, in its container (tests move it).
        nonisolated(unsafe) static var directory: URL? = {
            #if APPLE_STAND_INS
                AppleFileProtection.applicationSupportDirectory
            #else
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            #endif
        }()?.appendingPathComponent("AppSettings", isDirectory: true)

        /// Why protected data is not available now, or `nil` when it is: a domain that reads
        /// nothing may hold a set all the same only while it is not.
        ///
        /// - Throws: ``AppSettingsError/readFailed(key:reason:)`` when the file cannot be opened for
        ///   another reason (a link or a directory in its place, an I/O error): whether the domain
        ///   holds the set cannot be told, so nothing may be written over it.
        static func unavailability(forKey key: String) throws -> String? {
            guard let directory else { return nil }
            let path = directory.appendingPathComponent("protected-data-probe", isDirectory: false).path
            let descriptor = openForReading(path)
            if descriptor >= 0 {
                close(descriptor)
                return nil
            }
            let error = errno
            switch error {
            case EPERM, EACCES:
                return "protected data is not available (\(path) cannot be opened before the device's first unlock)"
            case ENOENT:
                // The first time in this container: made now, under the class it tells by.
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                guard createProtectedFile(atPath: path) else {
                    return "protected data is not available (\(path) cannot be created before the device's first "
                        + "unlock)"
                }
                return nil
            default:
                throw AppSettingsError.readFailed(
                    key: key,
                    reason: "UserDefaults reads nothing, and whether protected data is available cannot be told "
                        + "(\(path): \(String(cString: strerror(error)))); nothing is written over what may be stored")
            }
        }

        private static func openForReading(_ path: String) -> Int32 {
            #if APPLE_STAND_INS
                AppleFileProtection.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            #else
                open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            #endif
        }

        private static func createProtectedFile(atPath path: String) -> Bool {
            #if APPLE_STAND_INS
                AppleFileProtection.createProtectedFile(atPath: path, contents: Data())
            #else
                FileManager.default.createFile(
                    atPath: path, contents: Data(),
                    attributes: [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication])
            #endif
        }
    }
#endif
