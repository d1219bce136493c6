import Foundation

// open, flock and strerror: each platform's C library.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An advisory lock on a file (`flock`): exclusive for writers, shared for readers. Used on Linux
/// for a domain's writers in every process, and on Apple platforms for the writers of an App Group
/// suite in the app and its extensions.
///
/// `flock` locks belong to an open file description, so two threads of one process that each
/// open the file exclude each other too.
enum FileLock {
    /// Runs `body` holding the lock on `path`: exclusive for a writer, which creates the file and
    /// its directory as needed; shared for a reader where the lock can be had. A reader of a
    /// configuration it cannot write (a read-only mount, settings provisioned by an administrator)
    /// takes the lock through a read-only descriptor, or runs without it when there is no lock file
    /// to open: writers replace the library's files by renaming, so a reader never sees half of one.
    /// A writer's failures are `storeFailed`, naming the file; a reader's are `readFailed`.
    static func withLock<T>(
        at path: String,
        exclusive: Bool,
        key: String,
        _ body: () throws -> T
    ) throws -> T {
        let descriptor = exclusive ? try openForWriting(path, key: key) : openForReading(path)
        guard let descriptor else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            // Going on without the lock could drop another process's changes: a failure is loud.
            guard errno == EINTR else {
                let reason = "could not lock \(path): \(String(cString: strerror(errno)))"
                throw exclusive
                    ? AppSettingsError.storeFailed(key: key, reason: reason)
                    : AppSettingsError.readFailed(key: key, reason: reason)
            }
        }
        return try body()
    }

    /// Runs `body` holding the exclusive lock on `path`, waiting for it at most `limit`, and no
    /// longer once `shouldStop` says so: both are `storeFailed`, nothing written. For the writers
    /// of an App Group on Apple platforms, which must not wait while the app is being suspended.
    static func withLock<T>(
        at path: String,
        key: String,
        waitingAtMost limit: Duration,
        stoppingWhen shouldStop: () -> Bool,
        _ body: () throws -> T
    ) throws -> T {
        let descriptor = try openForWriting(path, key: key)
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + limit
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw AppSettingsError.storeFailed(
                    key: key, reason: "could not lock \(path): \(String(cString: strerror(errno)))")
            }
            if shouldStop() {
                throw AppSettingsError.storeFailed(
                    key: key,
                    reason: "the app is about to be suspended, so it stopped waiting for \(path) (held by another "
                        + "process of the App Group); nothing was written")
            }
            guard ContinuousClock.now < deadline else {
                throw AppSettingsError.storeFailed(
                    key: key,
                    reason:
                        "\(path) stayed locked by another process of the App Group for \(limit); nothing was written")
            }
            usleep(5_000)
        }
        return try body()
    }

    private static func openForWriting(_ path: String, key: String) throws -> Int32 {
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw AppSettingsError.storeFailed(
                    key: key, reason: "\(directory.path) could not be created, so nothing was written: \(error)")
            }
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else {
            throw AppSettingsError.storeFailed(
                key: key,
                reason: "\(path) could not be opened for writing, so nothing was written: "
                    + String(cString: strerror(errno)))
        }
        return descriptor
    }

    /// A descriptor to take a shared lock through, or `nil` when none can be had.
    private static func openForReading(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { return descriptor }
        let readOnly = open(path, O_RDONLY | O_CLOEXEC)
        return readOnly >= 0 ? readOnly : nil
    }

}

/// One in-process lock per settings key: writers of one settings set in one process run one at a
/// time through re-read, merge and write (on Apple platforms, where no file lock serializes them
/// all; on Linux the domain's file lock does). By key alone, not suite and key: on Apple platforms
/// two `UserDefaults` of one suite cannot be told to be one, and writers of equal keys in other
/// suites waiting for each other costs nothing worth the risk.
enum KeyLocks {
    private static let locks = Protected<[String: Protected<Int>]>([:])

    /// Runs `body` holding the lock of `key`.
    static func withLock<T>(key: String, _ body: () throws -> T) throws -> T {
        // Found or made under the registry's lock, which is released before waiting for the key's.
        let lock = locks.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = Protected(0)
            locks[key] = lock
            return lock
        }
        return try lock.withLock { writers in
            writers += 1  // a value to guard: ThreadSanitizer sees the lock through it
            return try body()
        }
    }
}
