// Overrides as a user meets them: a child process started with launch arguments, environment
// variables and a managed configuration file (Linux: `$XDG_CONFIG_DIRS`). `Process` exists on
// macOS and Linux only.
#if os(Linux) || os(macOS)
    import AppSettings
    import AppSettingsStoredSets
    import Foundation
    import Testing

    /// The `overrides` command of the test host (Tests/AppSettingsTestHost), run with overrides.
    @Suite("Overrides in a child process")
    struct OverrideProcessTests {
        /// A scratch directory for `XDG_CONFIG_DIRS`, removed afterwards.
        private func withConfigurationDirectory(_ body: (URL) throws -> Void) throws {
            let directory = try ScratchDirectory("AppSettingsOverrides")
            try withExtendedLifetime(directory) { try body(directory.url) }
        }

        /// Writes `json` as the managed configuration of the set `AppSettings.<postfix>` of `suite`
        /// under `directory`.
        private func writeManaged(_ json: String, in directory: URL, suite: String, postfix: String) throws {
            let folder = directory.appendingPathComponent("AppSettings/\(suite)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(json.utf8).write(to: folder.appendingPathComponent("AppSettings.\(postfix).json"))
        }

        /// On Apple platforms the managed app configuration is read from the standard defaults,
        /// which the argument domain is part of: the same entries as the managed file, as an argument.
        private var appleManagedConfiguration: [String] {
            #if os(macOS)
                [
                    "-com.apple.configuration.managed",
                    #"{"AppSettings.Over" = {precedence = managed; soundLevel = 7; audio = {volume = 9;}; bogus = 1;};}"#,
                ]
            #else
                []
            #endif
        }

        private func runOverrides(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any] {
            try TestHost.run(["overrides"] + arguments, environment: environment).requireSuccess().jsonObject()
        }

        @Test("arguments, environment and a managed file override settings by type, in order, and are never saved")
        func overridesInAChildProcess() throws {
            try withProcessSuite { suite, userDefaults in
                try withConfigurationDirectory { directory in
                    let first = directory.appendingPathComponent("first")
                    let second = directory.appendingPathComponent("second")
                    let third = directory.appendingPathComponent("third")
                    // The first directory that has the file wins: `second`, not `third`.
                    try writeManaged(
                        #"{"$schemaVersion": 0, "precedence": "managed", "soundLevel": 7, "audio": {"volume": 9}, "bogus": 1}"#,
                        in: second, suite: suite, postfix: "Over")
                    try writeManaged(#"{"name": "third directory"}"#, in: third, suite: suite, postfix: "Over")
                    let environment = [
                        "XDG_CONFIG_DIRS": [first, second, third].map(\.path).joined(separator: ":"),
                        "OVER_THEME": "dark",
                        "OVER_PRECEDENCE": "environment",
                        "OVER_NAME": "from the environment",
                        "OVER_HOME_PAGE": "https://example.com/start",
                    ]
                    let arguments =
                        [
                            suite, "Over", "assign",
                            "-Over.soundLevel", "0.3",
                            "-Over.enabled", "YES",
                            "-Over.tags", "(a, \"b c\")",
                            "-Over.limits", "{max = 3;}",
                            "-Over.numbers", "[1, 2]",
                            "-Over.frame", "{width = 300; height = 200;}",
                            "-Over.start", "2026-11-30T10:00:00Z",
                            "-Over.id", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                            "-Over.audio.muted", "true",
                            "-Over.volume", "999",
                            "-Over.precedence", "argument",
                            "-Over.nosuch", "1",
                        ] + appleManagedConfiguration
                    let json = try runOverrides(arguments, environment: environment)
                    let values = try #require(json["values"] as? [String: Any])
                    let sources = try #require(json["sources"] as? [String: String])

                    // Managed wins over the argument, and validate: clamps its 7.
                    #expect(values["soundLevel"] as? Double == 1)
                    #expect(sources["soundLevel"] == "managed")
                    #expect(values["precedence"] as? String == "managed")
                    #expect(sources["precedence"] == "managed")
                    #expect(values["audio.volume"] as? Int == 9)
                    #expect(sources["audio.volume"] == "managed")
                    // Arguments, parsed by the declared type.
                    #expect(values["enabled"] as? Bool == true)
                    #expect(values["tags"] as? [String] == ["a", "b c"])
                    #expect(values["limits"] as? [String: Int] == ["max": 3])
                    #expect(values["numbers"] as? [Int] == [1, 2])
                    #expect(values["frame"] as? [Double] == [300, 200])
                    #expect(values["start"] as? String == "2026-11-30T10:00:00Z")
                    #expect(values["id"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
                    #expect(values["audio.muted"] as? Bool == true)
                    for name in ["enabled", "tags", "limits", "numbers", "frame", "start", "id", "audio.muted"] {
                        #expect(sources[name] == "launchArgument", "\(name)")
                    }
                    // The environment, where neither managed configuration nor an argument has one.
                    #expect(values["theme"] as? String == "dark")
                    #expect(values["name"] as? String == "from the environment")
                    #expect(values["homePage"] as? String == "https://example.com/start")
                    for name in ["theme", "name", "homePage"] { #expect(sources[name] == "environment", "\(name)") }
                    // 999 does not fit an Int8: ignored, listed; the stored value stays.
                    #expect(values["volume"] as? Int == 3)
                    let ignored = try #require(json["ignored"] as? [[String: String]])
                    let ignoredSettings = Set(ignored.compactMap { $0["setting"] })
                    #expect(ignoredSettings == ["volume", "nosuch", "bogus"])
                    let volume = try #require(ignored.first { $0["setting"] == "volume" })
                    #expect(volume["source"] == "launchArgument" && volume["origin"] == "-Over.volume")
                    #expect(volume["reason"]?.contains("expected an integer in -128...127") == true)

                    // Never saved: the host assigned soundLevel and audio.volume (overridden both)
                    // and synchronized; the store holds those assignments and no override.
                    #expect(json["unsaved"] as? Bool == false)
                    let stored = StoredSettingsInspector.jsonObject(of: UserDefaults(suiteName: suite)!, key: "Over")
                    let set = try #require(stored["AppSettings.Over"] as? [String: Any], "\(stored)")
                    #expect(set["soundLevel"] as? Double == 0.25)
                    #expect((set["audio"] as? [String: Any])?["volume"] as? Int == 7)
                    #expect(set["theme"] as? String == "light")
                    #expect(set["enabled"] as? Bool == false)
                    #expect(set["precedence"] as? String == "developer default")
                    #expect(set["tags"] as? [String] == [])
                    _ = userDefaults

                    // Without the overrides, the next launch reads the user's values.
                    let plain = try runOverrides([suite, "Over"], environment: ["XDG_CONFIG_DIRS": first.path])
                    let plainValues = try #require(plain["values"] as? [String: Any])
                    let plainSources = try #require(plain["sources"] as? [String: String])
                    #expect(plainValues["soundLevel"] as? Double == 0.25)
                    #expect(plainValues["audio.volume"] as? Int == 7)
                    #expect(plainValues["theme"] as? String == "light")
                    #expect(Set(plainSources.values) == ["stored"])
                }
            }
        }

        @Test("a set never stored reports developer defaults; a damaged managed file is ignored and listed")
        func developerDefaultsAndDamagedManagedFile() throws {
            try withProcessSuite { suite, _ in
                try withConfigurationDirectory { directory in
                    try writeManaged("{ not json", in: directory, suite: suite, postfix: "Over")
                    let json = try runOverrides(
                        [suite, "Over"], environment: ["XDG_CONFIG_DIRS": directory.path])
                    let sources = try #require(json["sources"] as? [String: String])
                    #expect(Set(sources.values) == ["developerDefault"])
                    let ignored = try #require(json["ignored"] as? [[String: String]])
                    #if os(Linux)
                        #expect(ignored.count == 1)
                        #expect(ignored.first?["source"] == "managed")
                        #expect(ignored.first?["setting"] == "")
                    #endif
                }
            }
        }
    }
#endif
