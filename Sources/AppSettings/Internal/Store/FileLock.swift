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
    /// The longest a lock is waited for, in seconds, before the wait ends in an error naming the
    /// file: the library's own holders keep a lock for milliseconds (one save, one read), so a
    /// lock held longer belongs to a stuck or hostile process. Tests shorten it.
    @TaskLocal static var waitLimit: Double = 10

    /// Runs `body` holding the lock on `path`: exclusive for a writer, which creates the file and
    /// its directory (this user's only); shared for a reader where the lock can be had (a reader
    /// that cannot write takes it read-only, or runs without it where there is no lock file: writers
    /// rename, so a reader never sees half a file). Never through a link; a lock file that is not
    /// a regular file is refused without blocking. Waits at most `limit` seconds (by default
    /// ``waitLimit``), and no longer once `shouldStop` says so (the writers of an App Group on Apple
    /// platforms, which must not wait while the app is being suspended). Failures are `storeFailed`
    /// for a writer, `readFailed` for a reader, naming the file.
    static func withLock<T>(
        at path: String,
        exclusive: Bool,
        key: String,
        waitingAtMost limit: Double? = nil,
        stoppingWhen shouldStop: () -> Bool = { false },
        _ body: () throws -> T
    ) throws -> T {
        func failure(_ reason: String) -> AppSettingsError {
            exclusive ? .storeFailed(key: key, reason: reason) : .readFailed(key: key, reason: reason)
        }
        let descriptor: Int32?
        do {
            descriptor = exclusive ? try openForWriting(path) : try openForReading(path)
        } catch {
            throw failure(
                exclusive ? "\(path) could not be opened for writing, so nothing was written: \(error)" : "\(error)")
        }
        guard let descriptor else { return try body() }
        defer { close(descriptor) }
        let start = DispatchTime.now().uptimeNanoseconds
        let limit = limit ?? waitLimit
        var pause: useconds_t = 100
        while flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            // Going on without the lock could drop another process's changes: a failure is loud.
            switch errno {
            case EINTR:
                continue
            case EWOULDBLOCK:
                if shouldStop() {
                    throw failure(
                        "the app is about to be suspended, so it stopped waiting for \(path) (held by another "
                            + "process of the App Group); nothing was written")
                }
                guard Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < limit else {
                    throw failure(
                        "\(path) stayed locked by another process for more than \(limit) s (a process stuck "
                            + "holding it?); " + (exclusive ? "nothing was written" : "nothing was read"))
                }
                usleep(pause)
                pause = min(pause * 2, 5_000)
            default:
                throw failure("could not lock \(path): \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }

    private static func openForWriting(_ path: String) throws(GuardedFile.Problem) -> Int32 {
        do {
            return try GuardedFile.open(path, O_RDWR | O_CREAT)
        } catch  where error.isMissing {
            let directory = (path as NSString).deletingLastPathComponent
            do {
                try GuardedFile.createDirectories(directory)
            } catch {
                throw GuardedFile.Problem(description: "\(directory) could not be created: \(error)")
            }
            return try GuardedFile.open(path, O_RDWR | O_CREAT)
        }
    }

    /// A descriptor to take a shared lock through, or `nil` when none can be had (no lock file,
    /// and none can be made).
    private static func openForReading(_ path: String) throws(GuardedFile.Problem) -> Int32? {
        do {
            return try GuardedFile.open(path, O_RDWR | O_CREAT)
        } catch  where error.isMissing || error.isDenied {
            do {
                return try GuardedFile.open(path, O_RDONLY)
            } catch  where error.isMissing || error.isDenied {
                return nil
            }
        }
    }
}

/// One in-process lock per settings key: writers of one settings set in one process run one at a
/// time through re-read, merge and write (on Apple platforms, where no file lock serializes them
/// all; on Linux the domain's file lock does). By key alone, not suite and key: on Apple platforms
/// two `UserDefaults` of one suite cannot be told to be one, and writers of equal keys in other
/// suites waiting for each other costs nothing worth the risk.
enum KeyLocks {
    private static let locks = Protected<[String: Protected<Int>]>([:])

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
