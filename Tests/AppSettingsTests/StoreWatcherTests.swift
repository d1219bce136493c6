import Foundation
import Testing

@testable import AppSettings

#if os(Linux)
    /// The Linux store watcher starts a short while after the first live object of a process (so
    /// that short-lived processes never make an inotify instance) and catches up at its start.
    @Suite("Store watcher")
    struct StoreWatcherTests {
        let suite = TemporarySuite()

        @Test func anotherProcessesWriteRightAfterTheLoadIsTold() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            let told = NotificationRecorder(settings, name: AppSettingsObject.storedSettingsDidChangeNotification)
            // What another process writes at once: an archive with a `$writeID` this process never
            // wrote, renamed into the recovery copy's place, before `startDelay` has passed (unless
            // another test's live object keeps the watch running: then inotify tells).
            let other = MySettings(userDefaults: suite.another())
            other.theme = .dark
            let bytes = try other.codec.archive(other.takeSnapshot())
            let copy = try #require(settings.recoveryCopyURL)
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: copy, options: .atomic)
            #expect(waitUntil(seconds: 5) { !told.names.values.isEmpty })
        }
    }
#endif
