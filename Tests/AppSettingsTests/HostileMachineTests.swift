@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

// The library's own files on Linux: real files, real processes, tried as an attacker and as an
// unlucky user would (issue 29), with the store inspected after each.
#if os(Linux)
    @Suite("A hostile machine: links, stuck processes, huge files, strange names", .capturedLibraryLog)
    final class HostileMachineTests {
        let suite = TemporarySuite()
        let scratch: ScratchDirectory

        init() throws {
            scratch = try ScratchDirectory("HostileMachine")
        }

        /// A saved object, so that its store directory, lock file and recovery copy exist.
        private func saved(_ theme: Theme = .dark) throws -> MySettings {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = theme
            try settings.synchronizeToUserDefaults()
            return settings
        }

        private func storeDirectory(of settings: MySettings) throws -> URL {
            try #require(settings.recoveryCopyURL).deletingLastPathComponent()
        }

        /// A file outside the store that a link points to: its bytes must stay as they are.
        private func victim() throws -> URL {
            try scratch.file("victim.conf", Data("the user's own file\n".utf8))
        }

        private func expectStoreFailed(
            _ body: () throws -> Void,
            mentioning text: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(sourceLocation: sourceLocation) {
                try body()
            } throws: { error in
                guard case .storeFailed(_, let reason) = error as? AppSettingsError else { return false }
                return reason.contains(text)
            }
        }

        // MARK: Links

        @Test("a link planted where a save makes its temporary file is never written through")
        func aLinkAtTheTemporaryFilesNameIsNotFollowed() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            let victim = try victim()
            // The names a save could foresee before: `.<key>.<pid>.tmp`, in a directory made first.
            let directory = try #require(settings.recoveryCopyURL).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let keyFile = try #require(settings.recoveryCopyURL).deletingPathExtension().lastPathComponent
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(".\(keyFile).\(getpid()).tmp"), withDestinationURL: victim)
            try settings.synchronizeToUserDefaults()
            #expect(try Data(contentsOf: victim) == Data("the user's own file\n".utf8))
            #expect(MySettings(userDefaults: suite.another()).theme == .dark)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".tmp") && !$0.contains(".\(getpid()).") }
            #expect(leftovers.isEmpty)
        }

        @Test("a recovery copy that is a link to another suite's copy is refused, and nothing is stored")
        func aRecoveryCopyLinkIsRefused() throws {
            let other = TemporarySuite()
            let otherSettings = MySettings(userDefaults: other.userDefaults)
            otherSettings.theme = .system
            try otherSettings.synchronizeToUserDefaults()
            let otherCopy = try #require(otherSettings.recoveryCopyURL)
            let otherBytes = try Data(contentsOf: otherCopy)

            let settings = try saved()
            let copy = try #require(settings.recoveryCopyURL)
            try FileManager.default.removeItem(at: copy)
            try FileManager.default.createSymbolicLink(at: copy, withDestinationURL: otherCopy)
            settings.theme = .light
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "symbolic link")
            #expect(try Data(contentsOf: otherCopy) == otherBytes)
            #expect(MySettings(userDefaults: other.another()).theme == .system)
            // The domain was put back: what loads is the set stored before.
            #expect(MySettings(userDefaults: suite.another()).theme == .dark)
            withExtendedLifetime(other) {}
        }

        @Test("a dangling link at the lock file's name is not followed to create a file")
        func aDanglingLockFileLinkIsRefused() throws {
            let settings = try saved()
            let lockFile = try storeDirectory(of: settings).appendingPathComponent("domain.lock")
            let target = scratch.url.appendingPathComponent("created-through-the-link")
            try FileManager.default.removeItem(at: lockFile)
            try FileManager.default.createSymbolicLink(at: lockFile, withDestinationURL: target)
            settings.theme = .light
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "symbolic link")
            #expect(!FileManager.default.fileExists(atPath: target.path))
            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError.map { "\($0)" }?.contains("symbolic link") == true)
        }

        @Test("a link where the library's store directory belongs is refused")
        func aLinkedStoreDirectoryIsRefused() throws {
            let settings = try saved()
            let directory = try storeDirectory(of: settings)
            try FileManager.default.removeItem(at: directory)
            try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: scratch.url)
            defer { try? FileManager.default.removeItem(at: directory) }
            settings.theme = .light
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "symbolic link")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
        }

        @Test("directories the library creates are this user's only (0700)")
        func createdDirectoriesAreTheUsersOnly() throws {
            let settings = try saved()
            let attributes = try FileManager.default.attributesOfItem(atPath: try storeDirectory(of: settings).path)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
        }

        // MARK: Waits

        @Test("a lock another process holds ends a save's and a load's wait in an error naming the file")
        func aStuckLockHolderEndsInAnError() throws {
            let settings = try saved()
            let lockFile = try storeDirectory(of: settings).appendingPathComponent("domain.lock")
            // A real second process holds the domain's lock, as a stuck writer would: flock(1) takes
            // it and becomes `sleep` (no fork), so terminating it releases the lock.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            holder.arguments = ["--exclusive", "--no-fork", lockFile.path, "sleep", "60"]
            try holder.run()
            defer {
                // SIGKILL: a child of this process may start with SIGTERM blocked.
                kill(holder.processIdentifier, SIGKILL)
                holder.waitUntilExit()
            }
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
            let domainFile = try #require(settings.domainFileURL)
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

            let copy = try #require(settings.recoveryCopyURL)
            try FileManager.default.removeItem(at: copy)
            try #require(mkfifo(copy.path, 0o600) == 0)
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "a FIFO")
            #expect(MySettings(userDefaults: suite.another()).theme == .dark)
        }

        // MARK: Reads

        @Test("a JSON document over the limit is refused before it is parsed")
        func aHugeDocumentIsRefused() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            var document = Data(#"{"constellation": ""#.utf8)
            document.append(Data(repeating: UInt8(ascii: "a"), count: GuardedFile.maximumDocumentByteCount))
            document.append(Data(#""}"#.utf8))
            #expect {
                try settings.update(fromJSON: document)
            } throws: { error in
                guard case .malformedJSON(let reason) = error as? AppSettingsError else { return false }
                return reason.contains("limit")
            }
            #expect(settings.constellation == "Orion")
        }

        @Test("appsettings import - reads standard input only up to the limit")
        func anEndlessStandardInputIsRefused() throws {
            _ = try saved()
            let url = try #require(BuiltExecutable.url(named: "appsettings"))
            let tool = Process()
            tool.executableURL = url
            tool.arguments = ["import", "--suite", suite.name, "--key", "MyAppsSettings", "-"]
            tool.standardInput = FileHandle(forReadingAtPath: "/dev/zero")
            let errors = scratch.url.appendingPathComponent("errors")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            tool.standardError = try FileHandle(forWritingTo: errors)
            try tool.run()
            let deadline = Date().addingTimeInterval(60)
            while tool.isRunning, Date() < deadline { usleep(10_000) }
            if tool.isRunning {
                tool.terminate()
                Issue.record("appsettings import - < /dev/zero was still reading after 60 s")
            }
            tool.waitUntilExit()
            #expect(tool.terminationStatus == 1)
            #expect(try String(contentsOf: errors, encoding: .utf8).contains("standard input holds more than"))
        }

        @Test("a recovery copy over the limit is refused unread")
        func aHugeRecoveryCopyIsRefused() throws {
            let settings = try saved()
            let copy = try #require(settings.recoveryCopyURL)
            let handle = try FileHandle(forWritingTo: copy)
            try handle.truncate(atOffset: UInt64(RecoveryCopyFormat.maximumFileByteCount + 1))
            try handle.close()
            // The domain loses the key: the copy is what a load would use.
            suite.userDefaults.removeObject(forKey: settings.userDefaultsKey)
            suite.userDefaults.synchronize()
            let reader = MySettings(userDefaults: suite.another())
            guard case .readFailed(_, let reason)? = reader.lastLoadError else {
                Issue.record("the load did not fail: \(String(describing: reader.lastLoadError))")
                return
            }
            #expect(reason.contains("limit"))
        }

        @Test("a managed-configuration file over the limit is refused unread; a file is parsed once per change")
        func managedConfigurationFilesAreBoundedAndReadWhenTheyChange() throws {
            let directory = scratch.url.appendingPathComponent("AppSettings/Domain", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("Key.json")
            func read() -> ManagedConfigurationSource.Read {
                ManagedConfigurationSource.read(key: "Key", domain: "Domain", directories: [scratch.url.path])
            }
            try Data(#"{"theme": "dark"}"#.utf8).write(to: file)
            #expect(read() == .entries(["theme": .string("dark")], origin: file.path))
            let parses = ManagedConfigurationSource.parseCount(of: file.path)
            for _ in 0..<3 { _ = read() }
            #expect(ManagedConfigurationSource.parseCount(of: file.path) == parses)
            try Data(#"{"theme": "light"}"#.utf8).write(to: file)
            #expect(read() == .entries(["theme": .string("light")], origin: file.path))
            #expect(ManagedConfigurationSource.parseCount(of: file.path) == parses + 1)

            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(GuardedFile.maximumDocumentByteCount + 1))
            try handle.close()
            guard case .unreadable(_, _, let reason) = read() else {
                Issue.record("a file over the limit was read")
                return
            }
            #expect(reason.contains("limit"))
        }

        @Test("a managed-configuration directory that cannot be reached is reported, not skipped")
        func anUnreachableManagedDirectoryIsReported() throws {
            // A file where the domain's directory belongs: `stat` of the set's file fails with
            // ENOTDIR (root, as CI runs, passes any permission check, so no mode would do).
            try FileManager.default.createDirectory(
                at: scratch.url.appendingPathComponent("AppSettings"), withIntermediateDirectories: true)
            _ = try scratch.file("AppSettings/Domain", Data("in the way".utf8))
            let read = ManagedConfigurationSource.read(key: "Key", domain: "Domain", directories: [scratch.url.path])
            guard case .unreadable(let origin, _, let reason) = read else {
                Issue.record("not reported: \(read)")
                return
            }
            #expect(origin.hasSuffix("AppSettings/Domain/Key.json"))
            #expect(reason.contains("cannot be reached"))
        }

        // MARK: Names

        @Test(
            "suite names that leave the configuration directory or are cut short are refused before anything is written",
            arguments: ["../../escape-\(UUID().uuidString)", "/escape-\(UUID().uuidString)", "victim.conf\u{0}x", ".."]
        )
        func strangeSuiteNamesAreRefused(name: String) throws {
            let userDefaults = try #require(UserDefaults(suiteName: name))
            let settings = MySettings(userDefaults: userDefaults)
            guard case .invalidSuiteName(let refused, _)? = settings.lastLoadError else {
                Issue.record("the load did not refuse '\(name)': \(String(describing: settings.lastLoadError))")
                return
            }
            #expect(refused == name)
            settings.theme = .dark
            #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
            let configuration = ConfigurationDirectory.path
            let escaped = URL(fileURLWithPath: configuration).appendingPathComponent(name + ".plist").standardized
            #expect(!FileManager.default.fileExists(atPath: escaped.path))
            #expect(!FileManager.default.fileExists(atPath: configuration + "/victim.conf"))
            #expect(throws: AppSettingsError.self) { try AppSettingsObject.removeSuite(named: name) }
        }

        @Test("keys with '/', '..', NUL or over the length limit are refused")
        func strangeKeysAreRefused() throws {
            // A combining mark after '/' makes one Character of the two, but the file name still
            // holds the byte '/': the rules are checked on bytes.
            let keys = [
                "a/b", "a..b", "a\u{0}b", "a/\u{301}b", "a..\u{301}b",
                String(repeating: "k", count: StoreNames.maximumByteCount + 1),
            ]
            for key in keys {
                #expect(StoreNames.problem(with: key) != nil, "\(key)")
                #expect(throws: AppSettingsError.invalidKey(key: key, reason: StoreNames.problem(with: key)!)) {
                    try StoredSettingsEditor.check(key: key)
                }
            }
            let settings = SlashKeySettings(userDefaults: suite.userDefaults)
            guard case .invalidKey(let key, let reason)? = settings.lastLoadError else {
                Issue.record("not refused: \(String(describing: settings.lastLoadError))")
                return
            }
            #expect(key == settings.userDefaultsKey)
            #expect(reason.contains("'/'"))
            #expect(
                "\(AppSettingsError.invalidKey(key: "a\u{0}b", reason: "it contains a NUL character"))".contains(
                    #"a\u{0}b"#))
        }

        @Test("the tool refuses a strange suite name with exit 1 and writes nothing")
        func theToolRefusesStrangeSuiteNames() throws {
            let name = "../escape-\(UUID().uuidString)"
            let result = try Inspector.run(["set", "--suite", name, "--key", "MyAppsSettings", "theme", "dark"])
            #expect(result.status == 1)
            #expect(result.errors.contains("contains '/'"))
            let escaped = URL(fileURLWithPath: ConfigurationDirectory.path).appendingPathComponent(name + ".plist")
            #expect(!FileManager.default.fileExists(atPath: escaped.standardized.path))
        }

        // MARK: Failed saves

        @Test("a recovery copy that cannot be written: the domain is put back, nothing is stored")
        func aCopyFailureLeavesTheDomainAsItWas() throws {
            let settings = try saved(.system)
            let domainBefore = try Data(contentsOf: try #require(settings.domainFileURL))
            let copy = try #require(settings.recoveryCopyURL)
            try FileManager.default.removeItem(at: copy)
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false)
            settings.theme = .dark
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "nothing was stored")
            #expect(try Data(contentsOf: try #require(settings.domainFileURL)) == domainBefore)
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
            try FileManager.default.removeItem(at: copy)
            // The in-memory domain was put back too: a later flush does not write the refused set.
            suite.userDefaults.synchronize()
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
        }

        /// In a second process: corelibs synchronizes every dirty domain of a process at each
        /// `synchronize()`, so an unwritable domain file would fail this process's other tests' saves.
        @Test("a domain file that cannot be written: the recovery copy is put back, nothing is stored")
        func aDomainFailureLeavesTheCopyAsItWas() throws {
            let first = try TestHost.run(["write", suite.name, "Host", "1"])
            try #require(first.status == 0, "host failed: \(first.errors)")
            let location = DomainLocation.of(suiteNamed: suite.name)
            let copy = location.recoveryCopyPath(forKey: "AppSettings.Host")
            let archiveBefore = try #require(try RecoveryCopyFormat.archive(inFileAtPath: copy))
            try makeUnwritable(location.domainFilePath)
            defer { makeWritable(location.domainFilePath) }
            let refused = try TestHost.run(["write", suite.name, "Host", "2"])
            #expect(refused.status != 0)
            #expect(refused.errors.contains("nothing was stored"), "\(refused.errors)")
            #expect(try RecoveryCopyFormat.archive(inFileAtPath: copy) == archiveBefore)
            let read = try TestHost.run(["fields", suite.name, "Host"])
            #expect(read.output.hasPrefix("counter=1 "), "\(read.output) \(read.errors)")
        }

        /// Makes a file unwritable even for root (as CI runs): `chattr +i`; `chmod` otherwise.
        private func makeUnwritable(_ path: String) throws {
            if geteuid() == 0 {
                let chattr = try Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: ["+i", path])
                chattr.waitUntilExit()
                try #require(chattr.terminationStatus == 0, "chattr +i failed")
            } else {
                try #require(chmod(path, 0o444) == 0)
            }
        }

        private func makeWritable(_ path: String) {
            if geteuid() == 0 {
                let chattr = try? Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: ["-i", path])
                chattr?.waitUntilExit()
            } else {
                chmod(path, 0o644)
            }
        }
    }

    /// A class whose key holds a `/`.
    final class SlashKeySettings: AppSettingsObject, @unchecked Sendable {
        @Setting var count = 0
        override var userDefaultsKeyPostfix: String { "Slash/Key" }
    }
#endif
