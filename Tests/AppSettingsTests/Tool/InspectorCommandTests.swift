import AppSettingsStoredSets
import Foundation
import Testing

@testable import AppSettings

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// The `appsettings` executable run as a user runs it.
    // Lines captured: the tool's process writes the domain from its own cache, and a later load
    // here may log the older set it put back (issue 46's `$generation`).
    @Suite("appsettings command", .capturedLibraryLog)
    final class InspectorCommandTests {
        let suite = TemporarySuite()
        let directory: ScratchDirectory

        init() throws {
            directory = try ScratchDirectory("AppSettingsInspector")
        }

        /// A file in this test's scratch directory, removed with it.
        private func file(_ name: String, _ contents: Data) throws -> URL {
            try directory.file(name, contents)
        }

        private func storedAudio() throws -> AudioSettings {
            let settings = AudioSettings(userDefaults: suite.userDefaults)
            settings.volume = 9
            try settings.synchronizeToUserDefaults()
            return settings
        }

        /// Runs the command; expects it to succeed and returns its output parsed as JSON.
        private func dump(_ arguments: [String]) throws -> [String: Any] {
            try Inspector.runSucceeding(["dump"] + arguments).jsonObject()
        }

        @Test("dump --suite, every set and one by its postfix")
        func suiteDump() throws {
            let settings = AllTypesSettings(userDefaults: suite.userDefaults)
            SettingValueTests.fill(settings)
            try settings.synchronizeToUserDefaults()
            _ = try storedAudio()
            let sets = try dump(["--suite", suite.name])
            #expect(Set(sets.keys) == ["AppSettings.AllTypesSettings", "AppSettings.AudioSettings"])
            StoredSettingsInspectorTests.expectAllTypes(
                try #require(sets["AppSettings.AllTypesSettings"] as? [String: Any]))
            let one = try dump(["--suite", suite.name, "--key", "AudioSettings"])
            #expect((one["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #expect(one.count == 1)
        }

        @Test("dump --file of a domain file (binary and XML) and of an archive")
        func fileDump() throws {
            let bytes = try TestingHooks(object: storedAudio()).archivedBytes()
            for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
                let domain = try PropertyListSerialization.data(
                    fromPropertyList: ["AppSettings.AudioSettings": bytes, "other": "x"], format: format, options: 0)
                let sets = try dump(["--file", try file("domain.plist", domain).path])
                #expect((sets["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
                #expect(sets.count == 1)
            }
            let archive = try dump(["--file", try file("AppSettings.AudioSettings.archive", bytes).path])
            #expect((archive["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #if os(Linux)
                // The suite's own domain file, as corelibs wrote it.
                let domainFile = try #require(
                    AudioSettings(userDefaults: suite.userDefaults).settingsStore.domainFileURL)
                let sets = try dump(["--file", domainFile.path, "--key", "AppSettings.AudioSettings"])
                #expect((sets["AppSettings.AudioSettings"] as? [String: Any])?["volume"] as? Int == 9)
            #endif
        }

        @Test("a damaged or missing file, a key with no set, wrong arguments: non-zero, one line on stderr")
        func failures() throws {
            let bytes = try TestingHooks(object: storedAudio()).archivedBytes()
            let damaged = try file("damaged.archive", bytes.prefix(bytes.count - 10))
            try Inspector.expectRefusal(["dump", "--file", damaged.path], mentioning: damaged.path)
            let garbage = try file("garbage.plist", Data("<plist><dict><key>".utf8))
            try Inspector.expectRefusal(["dump", "--file", garbage.path], mentioning: "not a property list")
            let missing = directory.missingFile("missing.plist")
            try Inspector.expectRefusal(["dump", "--file", missing], mentioning: "no such file")
            try Inspector.expectRefusal(["dump", "--suite", suite.name, "--key", "Missing"], mentioning: "Missing")
            // A suite without a set (a misspelt name) fails as `get` does, not with `{}`.
            let noSuchSuite = "NoSuchSuite-\(UUID().uuidString)"
            try Inspector.expectRefusal(
                ["dump", "--suite", noSuchSuite], mentioning: "no settings set in suite '\(noSuchSuite)'")
            try Inspector.expectRefusal(["dump", "--suite"], status: 2, mentioning: "--suite needs a value")
            try Inspector.expectRefusal(
                ["dump", "--suite", suite.name, "--verbose"], status: 2, mentioning: "'--verbose'")
            try Inspector.expectRefusal(["list"], status: 2, mentioning: "unknown command 'list'")
            try Inspector.expectRefusal([], status: 2, mentioning: "missing command")
        }

        @Test("--help prints the usage")
        func help() throws {
            let result = try Inspector.run(["--help"])
            #expect(result.status == 0)
            #expect(result.output.hasPrefix("usage: appsettings dump --suite NAME [--key KEY]"))
        }
    }
#endif
