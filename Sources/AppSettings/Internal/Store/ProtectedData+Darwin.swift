// Apple platforms: whether protected data is available, told by a public signal: a small file of
// the library's own, created with `FileProtectionType.complete`, which "cannot be read from or
// written to while the device is locked or booting" (documentation/foundation/fileprotectiontype/
// complete). The preferences daemon's files take the class of the app's container ("your container
// uses NSFileProtectionCompleteUntilFirstUserAuthentication, a value that's inherited by the
// NSUserDefaults backing store", Apple DTS, developer forums thread 15685), which the app may have
// set to `complete` (the Data Protection capability), and "it's not always obvious because of the
// way that default data protection is inherited" (Apple DTS, thread 858122): the strictest class
// tells, whatever the app chose. Where the daemon keeps its files "is not considered part of that
// API" (thread 15685): the library never reads them.
#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation
    #if APPLE_STAND_INS
        import AppleStandIns
    #endif

    enum ProtectedData {
        /// The directory of the library's files: its folder in the app's (or the extension's) own
        /// Application Support directory, under the bundle identifier ("Never store files at the
        /// top level of this directory: Always put them in a subdirectory named for your app or
        /// company", File System Programming Guide): a Mac app outside the sandbox shares
        /// `~/Library/Application Support` with every other app (tests move it).
        nonisolated(unsafe) static var directory: URL? = {
            #if APPLE_STAND_INS
                AppleFileProtection.applicationSupportDirectory
            #else
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            #endif
        }()?.appendingPathComponent(PreferencesDomain.applicationName, isDirectory: true)
            .appendingPathComponent("AppSettings", isDirectory: true)

        /// The domains that read nothing while protected data was unavailable in this launch: one
        /// read before the first unlock "does not contain any of the values I have set. If I
        /// force-quit and relaunch the app all of my values come back" (thread 15685), so nothing
        /// such a domain reads later in the process is taken for nothing stored.
        static let domainsReadWhileUnavailable = Protected<Set<String>>([])

        /// Why `domain`, which reads nothing under `key`, may hold it all the same, or `nil` when
        /// nothing says so: protected data is not available now, or was not when this process
        /// read the domain empty before.
        ///
        /// - Throws: ``AppSettingsError/readFailed(key:reason:)`` when the file cannot be opened for
        ///   another reason (a link or a directory in its place, an I/O error): whether the domain
        ///   holds the set cannot be told, so nothing may be written over it.
        static func unavailability(forKey key: String, inDomain domain: String) throws -> String? {
            if let reason = try unavailabilityNow(forKey: key) {
                domainsReadWhileUnavailable.withLock { _ = $0.insert(domain) }
                return reason
            }
            guard domainsReadWhileUnavailable.withLock({ $0.contains(domain) }) else { return nil }
            return "UserDefaults read the domain \(domain) empty while protected data was not available, and may "
                + "read it so until the app is launched again"
        }

        private static func unavailabilityNow(forKey key: String) throws -> String? {
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
                return "protected data is not available (\(path) cannot be opened while the device is locked)"
            case ENOENT:
                // The first time in this container: made now, under the class it tells by.
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                guard createProtectedFile(atPath: path) else {
                    return "protected data is not available (\(path) cannot be created while the device is locked)"
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
                AppleFileProtection.createProtectedFile(atPath: path, contents: Data(), protection: .complete)
            #else
                FileManager.default.createFile(
                    atPath: path, contents: Data(), attributes: [.protectionKey: FileProtectionType.complete])
            #endif
        }
    }
#endif
