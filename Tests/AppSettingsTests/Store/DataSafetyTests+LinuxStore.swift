import Foundation
import Testing

@testable import AppSettings

// The Linux store only (the model of Apple's: see IntegrationTests/AppleBranches/Package.swift).
#if os(Linux) && !APPLE_STAND_INS
    extension DataSafetyTests {
        /// Issue 26, finding 5, on Linux: corelibs says which suite a `UserDefaults` reads, so one
        /// suite has one lock file and one watched folder however its `UserDefaults` was made.
        @Test func everyUserDefaultsOfOneSuiteHasOneLockFileHoweverMade() throws {
            let group = try #require(UserDefaults(appGroup: suite.name))
            let plain = try #require(UserDefaults(suiteName: suite.name))
            let first = MySettings(userDefaults: group)
            let second = MySettings(userDefaults: plain)
            let locations = [first, second].compactMap { $0.binding.store.preferencesDomain?.location }
            try #require(locations.count == 2)
            #expect(locations[0] === locations[1])
            #expect(locations[0] === DomainLocation.of(suite.userDefaults))
        }

        @Test func aDamagedDomainFileIsRecoveredFromTheCopy() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            // What a process killed while corelibs rewrote the file in place leaves behind.
            let domainFile = try #require(settings.settingsStore.domainFileURL)
            let original = try Data(contentsOf: domainFile)
            try original.prefix(original.count / 3).write(to: domainFile)
            suite.userDefaults.synchronize()
            #expect(suite.userDefaults.object(forKey: settings.userDefaultsKey) == nil)
            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.theme == .dark)
        }

        @Test func aRecoveryCopyThatCannotBeWrittenIsAThrownError() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            // A non-empty directory where the copy goes: renaming the written copy over it fails.
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            try FileManager.default.removeItem(at: copy)
            try FileManager.default.createDirectory(
                at: copy.appendingPathComponent("in the way"), withIntermediateDirectories: true)
            settings.theme = .light
            #expect {
                try settings.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(let key, let reason) = error as? AppSettingsError else { return false }
                return key == settings.userDefaultsKey && reason.contains(".archive")
            }
            #expect(settings.hasUnsavedChanges)
            try FileManager.default.removeItem(at: copy)
            try settings.synchronizeToUserDefaults()
            #expect(!settings.hasUnsavedChanges)
            #expect(MySettings(userDefaults: suite.another()).theme == .light)
        }

        /// A configuration this process cannot write (a read-only mount, settings provisioned by an
        /// administrator): the lock file cannot be opened for writing. Made here so that root, as CI
        /// runs, meets it too: the lock file is a directory, which no one opens for writing.
        @Test func aConfigurationThatCannotBeWrittenLoadsAndRefusesSavesByName() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let lockFile = try #require(writer.settingsStore.recoveryCopyURL(forKey: writer.userDefaultsKey))
                .deletingLastPathComponent()
                .appendingPathComponent("domain.lock")
            try FileManager.default.removeItem(at: lockFile)
            try FileManager.default.createDirectory(at: lockFile, withIntermediateDirectories: false)

            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError == nil)
            #expect(reader.theme == .dark)
            try reader.resetToUserDefaults()
            reader.theme = .light
            #expect {
                try reader.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(let key, let reason) = error as? AppSettingsError else { return false }
                return key == reader.userDefaultsKey && reason.contains(lockFile.path)
                    && reason.contains("could not be opened for writing")
            }
            #expect(reader.hasUnsavedChanges)
        }

        /// No lock file can be had at all (its directory cannot exist): a reader still loads the
        /// domain's set, and says that without the recovery copy it cannot tell it is the newest.
        @Test func aReaderWithoutALockFileStillLoads() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let directory = try #require(writer.settingsStore.recoveryCopyURL(forKey: writer.userDefaultsKey))
                .deletingLastPathComponent()
            try FileManager.default.removeItem(at: directory)
            #expect(FileManager.default.createFile(atPath: directory.path, contents: Data("in the way".utf8)))
            defer { try? FileManager.default.removeItem(at: directory) }
            let reader = MySettings(userDefaults: suite.another())
            guard case .ambiguousStoredSet(let key, let reason)? = reader.lastLoadError else {
                Issue.record("expected ambiguousStoredSet, got \(String(describing: reader.lastLoadError))")
                return
            }
            #expect(
                key == reader.userDefaultsKey && reason.contains(directory.path) && reason.contains("cannot be read"))
            #expect(reader.theme == .dark)
            reader.theme = .light
            #expect {
                try reader.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(_, let reason) = error as? AppSettingsError else { return false }
                return reason.contains(directory.path) && !reason.hasPrefix("reading")
            }
        }
    }
#endif
