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

        /// A new suite whose set was saved once (theme dark), and the path of its domain file.
        private func savedSet() throws -> (TemporarySuite, MySettings, String) {
            let suite = TemporarySuite()
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            return (suite, settings, DomainLocation.of(suite.userDefaults).domainFilePath)
        }

        /// The `user.*` extended attributes of the file at `path`, by name, as Python's `os` reads
        /// them (not the library's code); written the same way by `set`.
        private func userAttributes(of path: String, setting set: [String: String] = [:]) throws -> [String: String] {
            let script = """
                import json, os, sys
                path, wanted = sys.argv[1], json.loads(sys.argv[2])
                for name, value in wanted.items(): os.setxattr(path, name, value.encode())
                print(json.dumps({n: os.getxattr(path, n).decode() for n in os.listxattr(path) if n.startswith("user.")}))
                """
            let arguments = String(decoding: try JSONSerialization.data(withJSONObject: set), as: UTF8.self)
            let finished = try ChildProcess(program: "/usr/bin/env", ["python3", "-c", script, path, arguments])
                .waitUntilExit()
            try #require(finished.status == 0, "\(finished.errors)")
            return try #require(try JSONSerialization.jsonObject(with: Data(finished.output.utf8)) as? [String: String])
        }

        /// Issue 46: the new file renamed into place is the file as the user left it: its mode, its
        /// owner and group (a save by root keeps another user's file that user's) and every `user.*`
        /// extended attribute.
        @Test func aSaveKeepsTheDomainFilesModeOwnerAndUserAttributes() throws {
            let (suite, settings, path) = try savedSet()
            // Root may give the file to anyone; another user only to itself.
            let (user, group): (uid_t, gid_t) = getuid() == 0 ? (4242, 4243) : (getuid(), getgid())
            #expect(chmod(path, 0o640) == 0 && chown(path, user, group) == 0)
            let attributes = ["user.note": "kept by the user", "user.origin": "sync tool"]
            #expect(try userAttributes(of: path, setting: attributes) == attributes)
            let before = try #require(try GuardedFile.version(of: path))

            settings.theme = .system
            try settings.synchronizeToUserDefaults()
            let after = try #require(try GuardedFile.version(of: path))
            #expect(after.inode != before.inode, "replaced, not rewritten in place")
            var status = stat()
            #expect(lstat(path, &status) == 0 && status.st_mode & 0o7777 == 0o640)
            #expect(status.st_uid == user && status.st_gid == group)
            #expect(try userAttributes(of: path) == attributes)
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
        }

        /// Issue 46: a domain file its owner made read-only (0444) is refused, as corelibs' own
        /// write in place fails on it for the user: nothing written, the changes kept unsaved.
        @Test func aSaveRefusesADomainFileItsOwnerMadeReadOnly() throws {
            let (suite, settings, path) = try savedSet()
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            #expect(chmod(path, 0o444) == 0)
            defer { chmod(path, 0o600) }
            let (fileBefore, copyBefore) = (
                try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: copy)
            )

            settings.theme = .system
            #expect {
                try settings.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(let key, let reason) = error as? AppSettingsError else { return false }
                return key == settings.userDefaultsKey && reason.contains(path) && reason.contains("read-only")
                    && reason.contains("nothing was written")
            }
            #expect(settings.hasUnsavedChanges && settings.theme == .system)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fileBefore)
            #expect(try Data(contentsOf: copy) == copyBefore)
            #expect(MySettings(userDefaults: suite.another()).theme == .dark)

            // Writable again: the change is saved, the file keeps the mode it was given.
            #expect(chmod(path, 0o644) == 0)
            try settings.synchronizeToUserDefaults()
            var status = stat()
            #expect(lstat(path, &status) == 0 && status.st_mode & 0o7777 == 0o644)
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
        }

        /// A writer killed before its rename leaves the new domain file; removing the suite
        /// removes it with the domain (a passing `swift test` leaves no file in `~/.config`).
        @Test func removingASuiteRemovesANewDomainFileAKilledWriterLeft() throws {
            let (suite, _, path) = try savedSet()
            let leftOver = DomainFile.temporaryPath(replacing: path)
            #expect(FileManager.default.createFile(atPath: leftOver, contents: Data("<?xml".utf8)))
            try AppSettingsStore.suite(suite.name).remove()
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(!FileManager.default.fileExists(atPath: leftOver))
        }
    }
#endif
