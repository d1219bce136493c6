import AppSettings
import Foundation

// MARK: Where a load and a save of one set spend their time

/// The steps of `init(userDefaults:)` and `synchronizeToUserDefaults()` for a set of `count`
/// settings, each measured on its own through the internal call the library makes for it
/// (`AppSettingsObject+Testing.swift`), taking turns with the whole operation and with the
/// `Codable` path, which is each section's first row: the ratio column is the ratio to it. The
/// next regression is found by reading which step grew.
@MainActor
func measureBreakdown<Settings: BenchmarkSettingsSet, Plain: BenchmarkPlainSet>(
    _: Settings.Type,
    _: Plain.Type,
    count: Int
) throws {
    let suite = TemporarySuite()
    let writeSuite = TemporarySuite()
    let plistSuite = TemporarySuite()
    let plistKey = "PlainSettings"
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    let decoder = PropertyListDecoder()
    var plain = Plain()
    plistSuite.defaults.set(try encoder.encode(plain), forKey: plistKey)
    plistSuite.defaults.synchronize()

    let settings = Settings(userDefaults: suite.defaults)
    settings.makeDirty()
    try settings.synchronizeToUserDefaults()
    guard let stored = try TestingHooks(object: settings).readStoredBytes() else {
        fatalError("\(Settings.self) stored nothing")
    }
    let entries = TestingHooks(object: settings).decodedSettings(fromStoredBytes: stored)
    guard entries.count == count else { fatalError("\(Settings.self) decoded \(entries.count) of \(count) settings") }
    // The write step writes into a suite of its own, so that the whole saves above find what
    // they last wrote (no merge).
    let writer = Settings(userDefaults: writeSuite.defaults)
    writer.makeDirty()
    try writer.synchronizeToUserDefaults()
    guard let written = try TestingHooks(object: writer).readStoredBytes() else {
        fatalError("\(Settings.self) stored nothing")
    }
    let samples = setSamples(count)

    /// A sample of one step on a new object that has not loaded (made untimed).
    func onUnloadedObject(_ step: @escaping (AppSettingsObject) -> Int) -> () -> Double {
        {
            let object = TestingHooks(object: settings).newUnloadedObject()
            var result = 0
            let time = nanoseconds { result = step(object) }
            blackHole(result)
            return time
        }
    }

    let load = "load \(count) steps"
    try table.measure(
        load,
        [
            Contender(name: "Codable path: data(forKey:) + PropertyListDecoder") {
                plistSuite.defaults.synchronize()
                return try nanoseconds {
                    guard let data = plistSuite.defaults.data(forKey: plistKey) else { return }
                    blackHole(try decoder.decode(Plain.self, from: data).checksum)
                }
            },
            Contender(name: "AppSettings init(userDefaults:), whole") {
                suite.defaults.synchronize()
                var loaded: Settings?
                let time = nanoseconds { loaded = Settings(userDefaults: suite.defaults) }
                blackHole(loaded?.checksum ?? 0)
                return time
            },
            Contender(name: "1 attach the slots (a new object, made as a scratch copy)") {
                var object: AppSettingsObject?
                let time = nanoseconds { object = TestingHooks(object: settings).newUnloadedObject() }
                blackHole(object == nil ? 0 : 1)
                return time
            },
            Contender(name: "2 read the stored bytes (store, shared lock)") {
                suite.defaults.synchronize()
                return try nanoseconds { blackHole(try TestingHooks(object: settings).readStoredBytes()?.count ?? 0) }
            },
            Contender(name: "3 decode the archive (defensive reader, migration)") {
                nanoseconds { blackHole(TestingHooks(object: settings).decodedSettings(fromStoredBytes: stored).count) }
            },
            Contender(
                name: "4 apply: convert, validate, checkAfterDecode",
                sample: onUnloadedObject { TestingHooks(object: $0).applyAsLoaded(entries) }),
            Contender(
                name: "5 overrides: arguments, environment, managed",
                sample: onUnloadedObject {
                    TestingHooks(object: $0).applyOverridesAsAtInitialization()
                    return 1
                }),
            Contender(
                name: "6 publish: store registry, store watcher",
                sample: onUnloadedObject {
                    TestingHooks(object: $0).publishAsAtInitialization()
                    return 1
                }),
        ],
        samples: samples,
        settingCount: count
    )
    addSumOfSteps(load, prefixes: ["1 ", "2 ", "3 ", "4 ", "5 ", "6 "], count: count)

    let save = "save \(count) steps"
    let copy = FlushedCopy()
    // The Codable path's domain file, beside the library's (`<configuration directory>/<suite>.plist`).
    guard let directory = settings.settingsStore.domainFileURL?.deletingLastPathComponent() else {
        fatalError("\(Settings.self) has no domain file")
    }
    let plistDomainFile = directory.appendingPathComponent(plistSuite.name + ".plist").path
    guard FileManager.default.fileExists(atPath: plistDomainFile) else { fatalError("no file at \(plistDomainFile)") }
    /// The Codable path with a copy flushed alongside; with `domainFile`, that file and its
    /// directory flushed after `synchronize()` too.
    func durableCodableSave(flushing domainFile: String?) throws -> Double {
        plain.makeDirty()
        return try nanoseconds {
            let data = try encoder.encode(plain)
            copy.write(data) {
                plistSuite.defaults.set(data, forKey: plistKey)
                plistSuite.defaults.synchronize()
                if let domainFile { FlushedCopy.flushFileAndDirectory(domainFile) }
            }
        }
    }
    /// The Codable path given a save's durability whole: its domain file replaced as a save
    /// replaces the library's (the domain as XML, a new file flushed, renamed over the old one, the
    /// directory flushed), so that no kill or power loss can tear the suite, and a copy flushed
    /// alongside.
    func replacingCodableSave() throws -> Double {
        plain.makeDirty()
        return try nanoseconds {
            let data = try encoder.encode(plain)
            try copy.write(data) {
                plistSuite.defaults.set(data, forKey: plistKey)
                let domain = plistSuite.defaults.persistentDomain(forName: plistSuite.name) ?? [:]
                try FlushedCopy.replace(
                    plistDomainFile,
                    with: PropertyListSerialization.data(fromPropertyList: domain, format: .xml, options: 0))
            }
        }
    }
    // What the file system alone costs either way, for the domain file's bytes as the Codable path
    // leaves them, written to a file of their own in the same directory.
    let domainBytes = try Data(contentsOf: URL(fileURLWithPath: plistDomainFile))
    let floorFile = directory.appendingPathComponent("AppSettingsBenchmark-floor-\(UUID().uuidString).plist").path
    defer {
        unlink(floorFile)
        unlink(floorFile + ".benchmark-new")
    }
    try table.measure(
        save,
        [
            Contender(name: "Codable path: PropertyListEncoder + set + synchronize()") {
                plain.makeDirty()
                return try nanoseconds {
                    plistSuite.defaults.set(try encoder.encode(plain), forKey: plistKey)
                    plistSuite.defaults.synchronize()
                }
            },
            Contender(name: "AppSettings synchronizeToUserDefaults(), whole") {
                settings.makeDirty()
                return try nanoseconds { try settings.synchronizeToUserDefaults() }
            },
            Contender(name: "Codable path + a copy flushed alongside (the durability before issue 40)") {
                try durableCodableSave(flushing: nil)
            },
            Contender(name: "Codable path + its domain file flushed in place and a copy flushed") {
                try durableCodableSave(flushing: plistDomainFile)
            },
            Contender(name: "Codable path + its domain file replaced and a copy flushed (a save's durability)") {
                try replacingCodableSave()
            },
            // The floor: the file-system calls alone, on a file of the domain's bytes beside it.
            Contender(name: "the domain file's bytes alone, written in place (corelibs: truncate, write)") {
                nanoseconds { FlushedCopy.rewriteInPlace(floorFile, with: domainBytes) }
            },
            Contender(name: "the domain file's bytes alone, replaced as a save replaces it") {
                try nanoseconds { try FlushedCopy.replace(floorFile, with: domainBytes) }
            },
            Contender(name: "1 snapshot") {
                settings.makeDirty()
                return nanoseconds { blackHole(TestingHooks(object: settings).snapshotValueCount()) }
            },
            Contender(name: "2 snapshot, encode and archive") {
                settings.makeDirty()
                return try nanoseconds { blackHole(try TestingHooks(object: settings).archivedBytes().count) }
            },
            Contender(name: "3 write: lock, re-read, UserDefaults, recovery copy") {
                try nanoseconds { try TestingHooks(object: writer).writeStoredBytes(written) }
            },
        ],
        samples: samples,
        settingCount: count
    )
    addSumOfSteps(save, prefixes: ["2 ", "3 "], count: count)
}

/// Adds the row "sum of the steps" to `section`: the steps named by `prefixes`, compared with
/// the section's first row; the difference to the whole row is what the steps leave out.
@MainActor
private func addSumOfSteps(_ section: String, prefixes: [String], count: Int) {
    let rows = table.rows.filter { $0.section == section }
    let sum = rows.filter { row in prefixes.contains { row.name.hasPrefix($0) } }.map(\.value).reduce(0, +)
    table.add(
        section, "sum of steps " + prefixes.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "+"),
        sum, reference: rows.first?.value, settingCount: count)
}
