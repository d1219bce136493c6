import Foundation
import Testing

@testable import AppSettings

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// The tool's values as issue 39 asks: `null` for an optional, values that begin with `-`,
    /// integers read exactly, a mistyped key answered with the keys there are.
    /// Its lines are captured: the tool's process writes the domain from its own cache of it, and
    /// a later load here logs the older set it put back (issue 46's `$generation`).
    @Suite("appsettings set: null, dashes, exact integers, the keys there are", .capturedLibraryLog)
    struct ToolValueTests {
        let suite = TemporarySuite()
        private var key: [String] { ["--suite", suite.name, "--key", "SchemaSettings"] }

        private func stored() throws {
            let settings = SchemaSettings(userDefaults: suite.userDefaults)
            settings.nickname = "bob"
            try settings.synchronizeToUserDefaults()
        }

        private func reloaded() throws -> SchemaSettings {
            let settings = SchemaSettings(userDefaults: suite.another())
            try settings.resetToUserDefaults()
            return settings
        }

        @Test("null sets an optional string to nil; a value may begin with '-', and '--' ends the options")
        func nullAndDashes() throws {
            try stored()
            var result = try Inspector.run(["set"] + key + ["nickname", "null"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(try reloaded().nickname == nil)
            result = try Inspector.run(["set"] + key + ["nickname", "-h"])
            #expect(result.status == 0 && result.output.isEmpty, "\(result.output) \(result.errors)")
            #expect(try reloaded().nickname == "-h")
            result = try Inspector.run(["set"] + key + ["--", "nickname", "--help"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(try reloaded().nickname == "--help")
            result = try Inspector.run(["set"] + key + ["small", "-5"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(try reloaded().small == -5)
            // A string that is not optional keeps "null" as its text.
            result = try Inspector.run(["set"] + key + ["tags", #"["null"]"#])
            #expect(result.status == 0, "\(result.errors)")
            #expect(try reloaded().tags == ["null"])
            #expect(try Inspector.run(["-h"]).output.contains("usage:"))
        }

        @Test("an integer beyond its type is refused exactly, never rounded into it")
        func exactIntegers() throws {
            let settings = EveryKindSettings(userDefaults: suite.userDefaults)
            settings.wide = -1
            try settings.synchronizeToUserDefaults()
            let everyKind = ["--suite", suite.name, "--key", "EveryKindSettings"]
            for text in ["-9223372036854775809", "-9223372036854775900"] {
                let result = try Inspector.run(["set"] + everyKind + ["wide", text])
                #expect(result.status == 1, "\(text): \(result.errors)")
                #expect(result.errors.contains("expected an integer in -9223372036854775808..."), "\(result.errors)")
            }
            let reloaded = EveryKindSettings(userDefaults: suite.another())
            try reloaded.resetToUserDefaults()
            #expect(reloaded.wide == -1)
        }

        @Test("appsettings remove takes an unreadable set away, keeping its bytes under a backup key")
        func removeKeepsTheBytes() throws {
            let garbage = Data("definitely not an archive".utf8)
            suite.userDefaults.set(garbage, forKey: "AppSettings.SchemaSettings")
            #expect(suite.userDefaults.synchronize())
            let result = try Inspector.run(["remove"] + key)
            #expect(result.status == 0, "\(result.errors)")
            #expect(suite.storedObject(forKey: "AppSettings.SchemaSettings") == nil)
            let backups = suite.userDefaults.dictionaryRepresentation().filter {
                $0.key.hasPrefix("AppSettings.SchemaSettings.unreadable-")
            }
            #expect(backups.count == 1 && backups.first?.value as? Data == garbage, "\(backups.keys)")
            #expect(result.output.contains(backups.first?.key ?? "?"), "\(result.output)")
            let settings = SchemaSettings(userDefaults: suite.another())
            try settings.resetToUserDefaults()
            #expect(settings.lastLoadError == nil && settings.retries == 3)
            // Nothing there: refused, naming the key.
            let again = try Inspector.run(["remove"] + key)
            #expect(again.status == 1 && again.errors.contains("nothing is stored"), "\(again.errors)")
        }

        @Test("a key that is not there lists the keys there are")
        func mistypedKey() throws {
            try stored()
            let result = try Inspector.run(["get", "--suite", suite.name, "--key", "SchemaSetings", "theme"])
            #expect(result.status == 1)
            #expect(result.errors.contains("its sets: AppSettings.SchemaSettings"), "\(result.errors)")
        }
    }
#endif
