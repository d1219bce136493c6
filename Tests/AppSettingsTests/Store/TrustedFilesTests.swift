import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

// The Linux store only (the model of Apple's: see IntegrationTests/AppleBranches/Package.swift).
#if os(Linux) && !APPLE_STAND_INS
    /// Issue 40: which files and directories the library trusts, as OpenSSH trusts its configuration:
    /// owned by this user or by root, and writable by no one else. A configuration an administrator
    /// provisioned (owned by root, read-only for the user) loads; others are refused as before.
    /// Files owned by another user are made with `chown`, so these run as root (as CI does).
    @Suite("Trusted files", .capturedLibraryLog, .enabled(if: getuid() == 0, "chown needs root"))
    struct TrustedFilesTests {
        let suite = TemporarySuite()

        /// A saved set whose directories and files are then made read-only for everyone but root.
        private func provisionedSet() throws -> (store: String, files: [String]) {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let copy = try #require(writer.settingsStore.recoveryCopyURL(forKey: writer.userDefaultsKey)).path
            let store = (copy as NSString).deletingLastPathComponent
            let files = [try #require(writer.settingsStore.domainFileURL).path, copy, store + "/domain.lock"]
            for directory in [store, (store as NSString).deletingLastPathComponent] {
                #expect(chmod(directory, 0o755) == 0)
            }
            for file in files { #expect(chmod(file, 0o644) == 0) }
            return (store, files)
        }

        /// Loads the set as a user that is not root (uid 4242) would judge its files.
        private func loadAsAnotherUser() -> MySettings {
            GuardedFile.$trustedUser.withValue(4242) { MySettings(userDefaults: suite.another()) }
        }

        @Test func aReadOnlyConfigurationOwnedByRootLoads() throws {
            _ = try provisionedSet()
            let reader = loadAsAnotherUser()
            #expect(reader.lastLoadError == nil)
            #expect(reader.theme == .dark)
        }

        @Test func aDirectoryOfAnotherUserIsRefused() throws {
            let (store, _) = try provisionedSet()
            #expect(chown(store, 4343, 4343) == 0)
            let reader = loadAsAnotherUser()
            guard case .readFailed(_, let reason)? = reader.lastLoadError else {
                Issue.record("expected readFailed, got \(String(describing: reader.lastLoadError))")
                return
            }
            #expect(reason.contains("belongs to another user (uid 4343)"))
            #expect(reader.theme == .light)
            // Its own user's is trusted.
            let owner = GuardedFile.$trustedUser.withValue(4343) { MySettings(userDefaults: suite.another()) }
            #expect(owner.lastLoadError == nil)
            #expect(chown(store, 0, 0) == 0)
        }

        @Test func aDirectoryOthersMayWriteIsRefusedEvenOwnedByRoot() throws {
            let (store, _) = try provisionedSet()
            #expect(chmod(store, 0o777) == 0)
            let reader = loadAsAnotherUser()
            guard case .readFailed(_, let reason)? = reader.lastLoadError else {
                Issue.record("expected readFailed, got \(String(describing: reader.lastLoadError))")
                return
            }
            #expect(reason.contains("may be written by users other than its owner (mode 777)"))
            #expect(chmod(store, 0o700) == 0)
        }

        /// A managed configuration file that is not an administrator's (another user's, or one that
        /// others may write) is not used.
        @Test func aManagedFileOfAnotherUserOrWritableByOthersIsNotUsed() throws {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("AppSettingsTrust-\(UUID())")
            defer { try? FileManager.default.removeItem(at: root) }
            let folder = root.appendingPathComponent("AppSettings/domain")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("AppSettings.Trusted.json")
            let source = ManagedConfigurationSource.configurationDirectories([root.path])
            for (owner, mode, trusted) in [(0, 0o644, true), (4343, 0o644, false), (0, 0o666, false)] {
                // A new file each time: the source takes what it read before while the file is the same.
                try? FileManager.default.removeItem(at: file)
                try Data(#"{"name": "\#(owner)-\#(mode)"}"#.utf8).write(to: file)
                #expect(chown(file.path, uid_t(owner), gid_t(owner)) == 0 && chmod(file.path, mode_t(mode)) == 0)
                let read = GuardedFile.$trustedUser.withValue(4242) {
                    source.read(key: "AppSettings.Trusted", domain: "domain")
                }
                switch read {
                case .entries(let entries, _):
                    #expect(trusted, "owner \(owner), mode \(String(mode, radix: 8)): used")
                    #expect(entries["name"] == .string("\(owner)-\(mode)"))
                case .unreadable(_, _, let reason):
                    #expect(!trusted, "owner \(owner), mode \(String(mode, radix: 8)): \(reason)")
                    #expect(reason.contains("not trusted"))
                case .none:
                    Issue.record("nothing read")
                }
            }
        }

        /// The same for real: the test host, run as `nobody`, loads a configuration root provisioned.
        @Test func aConfigurationProvisionedByRootLoadsForAnotherUser() throws {
            let setpriv = "/usr/bin/setpriv"
            try #require(FileManager.default.isExecutableFile(atPath: setpriv), "\(setpriv) (util-linux) is needed")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("AppSettingsNobody-\(UUID())")
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/.config"]
            let written = try TestHost.run(["write", "Provisioned", "Trusted", "7"], environment: environment)
            try #require(written.status == 0, "\(written.errors)")
            // Read-only for everyone but root, as an administrator provisions it.
            let paths = try #require(FileManager.default.subpaths(atPath: home.path)).map { home.path + "/" + $0 }
            for path in [home.path] + paths {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                #expect(chmod(path, isDirectory.boolValue ? 0o755 : 0o644) == 0)
            }
            let launcher = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            let read = try ChildProcess(
                "AppSettingsTestHost", ["fields-of", "Provisioned", "Trusted"], environment: environment,
                launcher: launcher
            ).waitUntilExit()
            #expect(read.status == 0, "\(read.errors)")
            #expect(read.output == "Trusted counter=7 label=v7 values=7,7,7 error=no\n", "\(read.errors)")
        }
    }
#endif
