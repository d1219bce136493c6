import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The durability a save has on Linux, given to the `Codable` path for comparison: its bytes are
/// written in place into a file of their own, next to the domain files, and flushed, on another
/// thread while `UserDefaults` writes, as the library's recovery copy is (`pwrite`, then
/// `fdatasync`). corelibs rewrites a domain's file in place, so without such a copy a power loss
/// during the `Codable` path's write can leave nothing readable; a save's copy is what it costs not to.
final class FlushedCopy: @unchecked Sendable {
    private let path: String
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "benchmark.flushed-copy", attributes: .concurrent)

    init() {
        let directory = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/AppSettingsBenchmark-\(UUID().uuidString).copy"
        descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0, ftruncate(descriptor, 8192) == 0 else { fatalError("cannot create \(path)") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Runs `body` while `data` is written to the copy and flushed; returns when both are done.
    func write(_ data: Data, during body: () throws -> Void) rethrows {
        let done = DispatchSemaphore(value: 0)
        queue.async { [descriptor] in
            let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            // Linux, where the comparison is made: `fdatasync`, as the recovery copy. Elsewhere (the
            // benchmark only builds there; a save has no recovery copy) `fsync`.
            #if canImport(Glibc)
                let flushed = fdatasync(descriptor)
            #else
                let flushed = fsync(descriptor)
            #endif
            if written != data.count || flushed != 0 { fatalError("the copy could not be written") }
            done.signal()
        }
        try body()
        done.wait()
    }

    /// Replaces the file at `path` with `bytes` as a save replaces a domain file on Linux: a new
    /// file beside it written and flushed, renamed over it, then the directory flushed.
    static func replace(_ path: String, with bytes: Data) throws {
        let temporary = path + ".benchmark-new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard descriptor >= 0, written == bytes.count, fsync(descriptor) == 0, close(descriptor) == 0,
            rename(temporary, path) == 0
        else { fatalError("cannot replace \(path)") }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY)
        guard directory >= 0, fsync(directory) == 0 else { fatalError("cannot flush the directory of \(path)") }
        close(directory)
    }

    /// Writes `bytes` over the file at `path` in place, as corelibs' `synchronize()` writes a
    /// domain file: truncated, written again, nothing flushed.
    static func rewriteInPlace(_ path: String, with bytes: Data) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard descriptor >= 0, written == bytes.count, close(descriptor) == 0 else {
            fatalError("cannot write \(path)")
        }
    }

    /// Flushes the file at `path`, then its directory: what a save adds on Linux since it writes
    /// the domain's file itself (a new file flushed, renamed into place, and its directory flushed,
    /// so that the app's other keys survive a power loss too).
    static func flushFileAndDirectory(_ path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        for (target, flags) in [(path, O_RDONLY), (directory, O_RDONLY | O_DIRECTORY)] {
            let descriptor = open(target, flags)
            guard descriptor >= 0, fsync(descriptor) == 0 else { fatalError("cannot flush \(target)") }
            close(descriptor)
        }
    }
}
