// Linux only: corelibs' `UserDefaults.synchronize()` writes its whole cached domain over the file,
// so a plain writer of other keys puts back the set it last read. Apple's preferences daemon
// merges each process's changes into one domain and has no such writer.
#if os(Linux)
    import Foundation
    import Testing

    @testable import AppSettings

    /// An app's other code writing its own keys of the suite with `UserDefaults` beside the saves
    /// of a set (issue 46): a confirmed save is never rolled back.
    ///
    /// Not serialized: every run has its own suite, and the host processes only touch that suite.
    @Suite("A plain UserDefaults writer beside the saves", .capturedLibraryLog)
    struct PlainWriterProcessTests {
        /// The log line of a load or save that found the domain's set older than its copy.
        static let olderSetLine = "holds an older set"

        /// One process writes `plain.writer` with `UserDefaults(suiteName:)` and `synchronize()`,
        /// in a loop; another saves the triples 0...149, every save returning, and reloads every
        /// fifth round (it stops if a reload finds an older set than its last save). Then a new
        /// process loads 149, and says in its log when it found the domain's set older.
        @Test("three runs of a plain writer beside 150 saves: a new process loads the last confirmed save")
        func aPlainWriterNeverRollsBackAConfirmedSave() throws {
            var rolledBack = 0
            for run in 1...3 {
                try withProcessSuite { suite, userDefaults in
                    let directory = try ScratchDirectory("PlainWriter")
                    let stop = directory.url.appendingPathComponent("stop").path
                    let writer = try TestHost.startLoop(["plain-writer", suite, "Host", stop])
                    let saves = try TestHost.run(["write-many", suite, "Host", "150", "0"])
                    #expect(FileManager.default.createFile(atPath: stop, contents: nil))
                    let wrote = writer.waitUntilExit()
                    try #require(wrote.status == 0, "run \(run): \(wrote.errors)")
                    try #require(saves.status == 0, "run \(run): \(saves.errors)")
                    #expect(saves.output == "ok 149\n", "run \(run)")

                    let read = try TestHost.run(["read", suite, "Host"]).requireSuccess()
                    let json = try read.jsonObject()
                    let stored = try #require(json["settings"] as? [String: Any])
                    #expect(stored["counter"] as? Int == 149, "run \(run): \(read.errors)")
                    #expect(stored["label"] as? String == "v149", "run \(run)")
                    #expect(json["lastLoadError"] is NSNull, "run \(run): \(json["lastLoadError"] ?? "")")

                    // When the writer put an older set back after the last save (or the domain as it
                    // was before the first), the load said so.
                    let settings = ProcessTripleSettings(userDefaults: userDefaults)
                    let (domain, copy) = try generations(of: settings)
                    #expect(copy == 150, "run \(run): every save carries one more generation")
                    switch domain {
                    case nil:
                        #expect(read.errors.contains("was missing from its UserDefaults domain"), "\(read.errors)")
                    case let domain? where domain < 150:
                        #expect(read.errors.contains(Self.olderSetLine), "\(read.errors)")
                    default: #expect(read.errors.isEmpty, "run \(run): \(read.errors)")
                    }
                    rolledBack += (saves.errors + read.errors).components(separatedBy: Self.olderSetLine).count - 1
                }
            }
            print("a plain writer beside 150 saves: the domain's set was found older \(rolledBack) times in 3 runs")
        }

        /// The generations of the set in the domain's file (read from the file, not through the
        /// library; `nil` when the key is missing) and in its recovery copy.
        private func generations(of settings: AppSettingsObject) throws -> (domain: Int64?, copy: Int64?) {
            let store = settings.settingsStore
            let file = try #require(store.domainFileURL)
            let domain = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
            let bytes = (domain as? [String: Any])?[settings.userDefaultsKey] as? Data
            let copyURL = try #require(store.recoveryCopyURL(forKey: settings.userDefaultsKey))
            let copy = RecoveryCopyFormat.newestArchive(in: try Data(contentsOf: copyURL))
            return (try bytes.flatMap(SettingsCodec.generation(of:)), try SettingsCodec.generation(of: copy))
        }
    }
#endif
