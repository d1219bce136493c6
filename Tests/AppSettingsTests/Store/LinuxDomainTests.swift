import Foundation
import Testing

@testable import AppSettings

#if os(Linux) && !APPLE_STAND_INS
    /// What the Linux store asks of corelibs' preferences, beyond reading and writing its key.
    @Suite("The Linux store's domain", .capturedLibraryLog)
    struct LinuxDomainTests {
        /// corelibs' `UserDefaults.synchronize()` writes every domain of the process that has
        /// unsaved changes. A save, a load and a revert touch the set's own domain only: the app's
        /// pending changes elsewhere are written when the app asks, and a domain that cannot be
        /// written cannot fail another suite's save. In a process of its own (the test host), as
        /// tests running alongside in this one synchronize their suites, which writes every domain.
        @Test func aSaveALoadAndARevertWriteTheirOwnDomainOnly() throws {
            let suite = TemporarySuite()
            let elsewhere = TemporarySuite()
            let finished = try ChildProcess.run(
                "AppSettingsTestHost", ["own-domain", suite.name, "OwnDomain", elsewhere.name])
            #expect(finished.status == 0, "\(finished.errors)")
            #expect(finished.output == "other domain written: no counter=1\n")

            // The check sees a pending change once its own domain is synchronized.
            elsewhere.userDefaults.set("pending", forKey: "the app's own key")
            #expect(elsewhere.userDefaults.synchronize())
            let file = DomainLocation.of(elsewhere.userDefaults).domainFilePath
            let contents = try #require(FileManager.default.contents(atPath: file))
            #expect(String(decoding: contents, as: UTF8.self).contains("pending"))
        }

        /// Issue 40: a save writes the domain to a new file renamed into place (never truncating the
        /// old one), as corelibs writes it (an XML property list), with every other key and backup.
        @Test func aSaveReplacesTheDomainFileWholeWithEveryOtherKey() throws {
            let suite = TemporarySuite()
            let settings = MySettings(userDefaults: suite.userDefaults)
            let backupKey = settings.userDefaultsKey + ".unreadable-1700000000000"
            suite.userDefaults.set("the app's own", forKey: "plain")
            suite.userDefaults.set(["a": 1, "b": [true, false]], forKey: "nested")
            suite.userDefaults.set(Data([1, 2, 3]), forKey: backupKey)
            #expect(suite.userDefaults.synchronize())
            let path = DomainLocation.of(suite.userDefaults).domainFilePath
            let before = try #require(try GuardedFile.version(of: path))

            settings.theme = .dark
            try settings.synchronizeToUserDefaults()

            let after = try #require(try GuardedFile.version(of: path))
            #expect(after.inode != before.inode, "the old file was rewritten in place")
            let data = try #require(FileManager.default.contents(atPath: path))
            #expect(data.starts(with: Data("<?xml".utf8)))
            var format = PropertyListSerialization.PropertyListFormat.binary
            let stored = try #require(
                try PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any])
            #expect(format == .xml)
            #expect(stored["plain"] as? String == "the app's own")
            #expect((stored["nested"] as? [String: Any])?["a"] as? Int == 1)
            #expect(stored[backupKey] as? Data == Data([1, 2, 3]))
            #expect(stored[settings.userDefaultsKey] is Data)
            let directory = (path as NSString).deletingLastPathComponent
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasPrefix("." + (path as NSString).lastPathComponent) }
            #expect(leftovers.isEmpty)
            // corelibs reads it back as the app stored it.
            let other = suite.another()
            #expect(other.string(forKey: "plain") == "the app's own")
            #expect(MySettings(userDefaults: other).theme == .dark)
        }

        /// A writer killed before its rename leaves the new domain file; removing the suite
        /// removes it with the domain (a passing `swift test` leaves no file in `~/.config`).
        @Test func removingASuiteRemovesANewDomainFileAKilledWriterLeft() throws {
            let suite = TemporarySuite()
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            let path = DomainLocation.of(suite.userDefaults).domainFilePath
            let leftOver = DomainFile.temporaryPath(replacing: path)
            #expect(FileManager.default.createFile(atPath: leftOver, contents: Data("<?xml".utf8)))
            try AppSettingsStore.suite(suite.name).remove()
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: leftOver))
        }
    }
#endif
