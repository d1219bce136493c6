import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    extension HostileMachineTests {
        // MARK: Waits

        @Test("a lock another process holds ends a save's and a load's wait in an error naming the file")
        func aStuckLockHolderEndsInAnError() throws {
            let settings = try saved()
            let lockFile = try storeDirectory(of: settings).appendingPathComponent("domain.lock")
            // A real second process holds the domain's lock, as a stuck writer would: flock(1) takes
            // it and becomes `sleep` (no fork), so terminating it releases the lock.
            let holder = try ChildProcess(
                program: "/usr/bin/flock", ["--exclusive", "--no-fork", lockFile.path, "sleep", "60"])
            // SIGKILL: a child of this process may start with SIGTERM blocked.
            defer { holder.kill(SIGKILL) }
            let held = Date().addingTimeInterval(20)
            while flockIsFree(lockFile.path), Date() < held { usleep(5_000) }
            try #require(!flockIsFree(lockFile.path), "the second process did not take the lock")

            settings.theme = .light
            FileLock.$waitLimit.withValue(0.3) {
                expectStoreFailed(
                    { try settings.synchronizeToUserDefaults() }, mentioning: "\(lockFile.path) stayed locked")
                let reader = MySettings(userDefaults: suite.another())
                guard case .readFailed(_, let reason)? = reader.lastLoadError else {
                    Issue.record("the load did not fail: \(String(describing: reader.lastLoadError))")
                    return
                }
                #expect(reason.contains(lockFile.path))
            }
            #expect(settings.hasUnsavedChanges)
        }

        /// Whether `path`'s exclusive lock can be had right now (taken and released at once).
        private func flockIsFree(_ path: String) -> Bool {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return true }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
            flock(descriptor, LOCK_UN)
            return true
        }

        @Test("a FIFO where the domain's file belongs is refused without blocking")
        func aFIFOAtTheDomainsPathIsRefused() throws {
            let settings = try saved()
            let domainFile = try #require(settings.settingsStore.domainFileURL)
            try FileManager.default.removeItem(at: domainFile)
            try #require(mkfifo(domainFile.path, 0o600) == 0)
            defer { unlink(domainFile.path) }  // before the suite is removed, which would read it
            settings.theme = .light
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "a FIFO")
            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError.map { "\($0)" }?.contains("a FIFO") == true)
        }

        @Test("a FIFO where the lock file or the recovery copy belongs is refused without blocking")
        func aFIFOAtTheLockFileOrCopyIsRefused() throws {
            let settings = try saved()
            let lockFile = try storeDirectory(of: settings).appendingPathComponent("domain.lock")
            try FileManager.default.removeItem(at: lockFile)
            try #require(mkfifo(lockFile.path, 0o600) == 0)
            settings.theme = .light
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "a FIFO")
            try FileManager.default.removeItem(at: lockFile)

            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            try FileManager.default.removeItem(at: copy)
            try #require(mkfifo(copy.path, 0o600) == 0)
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "a FIFO")
            #expect(MySettings(userDefaults: suite.another()).theme == .dark)
        }
    }
#endif
