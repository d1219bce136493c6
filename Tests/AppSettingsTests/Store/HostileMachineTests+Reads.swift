import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    extension HostileMachineTests {
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
            let tool = try ChildProcess(
                "appsettings", ["import", "--suite", suite.name, "--key", "MyAppsSettings", "-"],
                standardInput: .file("/dev/zero"))
            let deadline = Date().addingTimeInterval(60)
            while tool.isRunning, Date() < deadline { usleep(10_000) }
            if tool.isRunning {
                tool.kill()
                Issue.record("appsettings import - < /dev/zero was still reading after 60 s")
            }
            let finished = tool.waitUntilExit()
            #expect(finished.status == 1)
            #expect(finished.errors.contains("standard input holds more than"))
        }

        @Test("a recovery copy over the limit is refused unread")
        func aHugeRecoveryCopyIsRefused() throws {
            let settings = try saved()
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
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
    }
#endif
