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
        func saved(_ theme: Theme = .dark) throws -> MySettings {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = theme
            try settings.synchronizeToUserDefaults()
            return settings
        }

        func storeDirectory(of settings: MySettings) throws -> URL {
            try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                .deletingLastPathComponent()
        }

        /// A file outside the store that a link points to: its bytes must stay as they are.
        func victim() throws -> URL {
            try scratch.file("victim.conf", Data("the user's own file\n".utf8))
        }

        func expectStoreFailed(
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
            let directory = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                .deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let keyFile = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
                .deletingPathExtension().lastPathComponent
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
            let otherCopy = try #require(
                otherSettings.settingsStore.recoveryCopyURL(forKey: otherSettings.userDefaultsKey))
            let otherBytes = try Data(contentsOf: otherCopy)

            let settings = try saved()
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
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
    }

    /// A class whose key holds a `/`.
    final class SlashKeySettings: AppSettingsObject, @unchecked Sendable {
        @Setting var count = 0
        override var userDefaultsKeyPostfix: String { "Slash/Key" }
    }
#endif
