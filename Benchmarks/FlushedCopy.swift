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
