import Foundation

// open, fstat, read and strerror: each platform's C library.
#if canImport(Glibc)
    import CoreFoundation  // with CDispatch: the modules `stat` and its members are seen through on Linux
    import CDispatch
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the library opens and reads the files it keeps or is given, so that a hostile or unlucky
/// directory cannot make it write elsewhere, wait forever or read without end:
/// - never through a symbolic link where a file belongs (`O_NOFOLLOW`);
/// - never blocking in `open` on a FIFO or a device (`O_NONBLOCK`), and refusing any file that
///   is not a regular one (`fstat`) before reading or writing a byte;
/// - never more than a limit's bytes, checked before anything is parsed.
enum GuardedFile {
    /// Why a file was refused or could not be used; the message names the file.
    struct Problem: Error, CustomStringConvertible {
        let description: String
        /// The file (or a directory above it) does not exist.
        var isMissing = false
        /// The file cannot be opened so, though it would never block or lead elsewhere: no
        /// permission, a read-only file system, a directory in the way.
        var isDenied = false
    }

    /// A documented limit on what a document or a configuration file may hold: twice what a domain
    /// may hold (a set's JSON form, base64 and names included, is larger than its archive).
    static let maximumDocumentByteCount = 2 * SettingsStore.maximumDomainByteCount

    /// Opens `path` with `flags` (`O_RDONLY`, `O_RDWR`, with `O_CREAT` and so on) as a regular file,
    /// never through a link (unless `followingLinks`) and never blocking; the descriptor returned
    /// blocks as usual.
    static func open(
        _ path: String,
        _ flags: Int32,
        mode: mode_t = 0o600,
        followingLinks: Bool = false
    ) throws(Problem) -> Int32 {
        let descriptor = systemOpen(path, flags | (followingLinks ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw problem(path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = problem(path, errno: errno)
            close(descriptor)
            throw failure
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Problem(
                description: "\(path) is \(kind(of: status.st_mode)), not a regular file; it was not used",
                isDenied: status.st_mode & S_IFMT == S_IFDIR)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// The bytes of the regular file at `path`, refused past `limit` bytes; `nil` when there is no
    /// file there.
    static func read(_ path: String, limit: Int, followingLinks: Bool = false) throws(Problem) -> Data? {
        let descriptor: Int32
        do {
            descriptor = try open(path, O_RDONLY, followingLinks: followingLinks)
        } catch {
            if error.isMissing { return nil }
            throw error
        }
        defer { close(descriptor) }
        return try read(descriptor, named: path, limit: limit)
    }

    /// Everything `descriptor` gives until its end (a pipe's too), refused as soon as it passes
    /// `limit` bytes: at most `limit + 1` bytes are read.
    static func read(_ descriptor: Int32, named name: String, limit: Int) throws(Problem) -> Data {
        var data = Data()
        // Not zeroed: only what `read` filled is appended.
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        while data.count <= limit {
            let wanted = min(chunk.count, limit + 1 - data.count)
            let count = systemRead(descriptor, chunk.baseAddress, wanted)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw problem(name, errno: errno) }
            if count == 0 { return data }
            data.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
        }
        throw Problem(description: "\(name) holds more than \(limit) bytes, the limit; it was refused before parsing")
    }

    /// Whether `count` bytes were moved by calls of `transfer` (a `write`, `pread` or `pwrite` from
    /// the byte it is given, returning how many it moved), each made again after `EINTR`.
    static func transferWhole(_ count: Int, _ transfer: (_ done: Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let result = transfer(done)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { return false }
            done += result
        }
        return true
    }

    /// A problem for `errno`; a link where a file belongs (`ELOOP` from `O_NOFOLLOW`) said so.
    static func problem(_ path: String, errno code: Int32) -> Problem {
        if code == ELOOP {
            return Problem(description: "\(path) is a symbolic link; AppSettings does not follow links to its files")
        }
        return Problem(
            description: "\(path): \(String(cString: strerror(code)))", isMissing: code == ENOENT,
            isDenied: [EACCES, EPERM, EROFS, EISDIR, ENOTDIR].contains(code))
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Why `path` cannot be used where a regular file belongs, found with `lstat(2)` without
    /// opening it; `nil` when nothing is there or it is a regular file.
    static func refusalOfNonRegularFile(at path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG else { return nil }
        return "\(path) is \(kind(of: status.st_mode)), not a regular file; AppSettings does not use it"
    }

    /// Why the directory at `path` cannot hold the library's files (a link, or not trusted:
    /// ``refusalOfOwnership(of:at:)``); `nil` otherwise.
    static func refusalOfDirectory(at path: String) -> String? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        if status.st_mode & S_IFMT == S_IFLNK {
            return "\(path) is a symbolic link; AppSettings does not follow links to its directories"
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { return nil }
        return refusalOfOwnership(of: status, at: path)
    }

    /// The user whose files are trusted besides root's: this process's effective user, unless a
    /// test says otherwise (to be "another user" than root without changing users).
    @TaskLocal static var trustedUser: uid_t?

    /// Why a file or directory whose status is `status` is not trusted, as OpenSSH trusts its
    /// configuration (`StrictModes`): it must belong to this user or to root (an administrator
    /// provisions configuration as root, read-only for the user), and no one but its owner may
    /// write it (no group or world write permission). `nil` when it is trusted.
    static func refusalOfOwnership(of status: stat, at path: String) -> String? {
        guard status.st_uid == trustedUser ?? geteuid() || status.st_uid == 0 else {
            return "\(path) belongs to another user (uid \(status.st_uid)); AppSettings does not use it"
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            let mode = String(status.st_mode & 0o7777, radix: 8)
            return "\(path) may be written by users other than its owner (mode \(mode)); AppSettings does not use it"
        }
        return nil
    }

    /// Why the file at `path` (its links followed) is not trusted (see
    /// ``refusalOfOwnership(of:at:)``); `nil` when it is, or when nothing is there.
    static func refusalOfFile(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return refusalOfOwnership(of: status, at: path)
    }

    /// What a file's status says of its contents: when any of it differs, the file changed.
    struct Version: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: TimeInterval
    }

    /// The version of the file at `path` (following links); `nil` when nothing is there; a
    /// problem when it cannot be reached.
    static func version(of path: String) throws(Problem) -> Version? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw problem(path, errno: errno)
        }
        // The times through FileManager, which reads them on every platform (`stat`'s time fields
        // are named apart on each): one more `stat`.
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? 0
        return Version(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: modified)
    }

    /// Creates the directory at `path` and any missing one above it, each readable, writable and
    /// searchable by this user only (0700); directories already there are left as they are.
    static func createDirectories(_ path: String) throws(Problem) {
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw problem(directory, errno: errno)
        }
    }
}

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
