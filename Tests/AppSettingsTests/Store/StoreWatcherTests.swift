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
            let bytes = try SettingsCodec(object: other).archive(other.ledger.takeSnapshot())
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: copy, options: .atomic)
            #expect(waitUntil(seconds: 30) { !told.names.values.isEmpty })
        }

        /// Writes `theme` as another process would: an archive with a `$writeID` this process
        /// never wrote, renamed into the place of `settings`' recovery copy.
        private func writeAsAnotherProcess(_ theme: Theme, for settings: MySettings) throws {
            try writeAsAnotherProcess(archive(theme), for: settings)
        }

        private func archive(_ theme: Theme) throws -> Data {
            let other = MySettings(userDefaults: suite.another())
            other.theme = theme
            return try SettingsCodec(object: other).archive(other.ledger.takeSnapshot())
        }

        private func writeAsAnotherProcess(_ bytes: Data, for settings: MySettings) throws {
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: copy, options: .atomic)
        }

        @Test("a live object of a suite nothing was stored in creates no directory, and is told of the first write")
        func noDirectoryIsCreatedAndTheFirstWriteIsTold() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            let directory = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                .deletingLastPathComponent()
            // Past the watch's start: the directory is watched for from an ancestor, not created.
            Thread.sleep(forTimeInterval: 0.5)
            #expect(!FileManager.default.fileExists(atPath: directory.path))

            let told = NotificationRecorder(settings, name: AppSettingsObject.storedSettingsDidChangeNotification)
            try writeAsAnotherProcess(.dark, for: settings)
            #expect(waitUntil(seconds: 30) { !told.names.values.isEmpty })
        }

        @Test("a suite removed and stored again while an object lives: the new write is told")
        func removedAndStoredAgainIsTold() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            try settings.synchronizeToUserDefaults(forcing: true)
            // Made now: no object made after the removal retains the directory again.
            let bytes = try archive(.system)
            Thread.sleep(forTimeInterval: 0.5)
            let directory = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                .deletingLastPathComponent()
            try FileManager.default.removeItem(at: directory)
            Thread.sleep(forTimeInterval: 0.1)

            let told = NotificationRecorder(settings, name: AppSettingsObject.storedSettingsDidChangeNotification)
            try writeAsAnotherProcess(bytes, for: settings)
            #expect(waitUntil(seconds: 30) { !told.names.values.isEmpty })
        }
    }
#endif
