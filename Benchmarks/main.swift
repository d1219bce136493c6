// Compares AppSettings with the other ways of storing settings, side by side in one run.
//
//     swift run -c release Benchmarks            # the full run, about 15 seconds
//     swift run -c release Benchmarks --quick    # fewer samples, a few seconds
//     scripts/benchmark-vs-older.sh COMMIT       # load and save of 20 against an older build
//
// Every figure is the median over many samples; the contenders of one measurement take turns.
// The `merge` rows save a set that another writer changed since (issue 11).

import AppSettings
import Foundation

/// Whether this is a debug build: a function, so that neither configuration sees dead code.
func isDebugBuild() -> Bool {
    #if DEBUG
        true
    #else
        false
    #endif
}

// A debug build measures nothing worth quoting, and compiles stand-ins for the large sets.
if isDebugBuild() {
    FileHandle.standardError.write(Data("Benchmarks measure release builds: swift run -c release Benchmarks\n".utf8))
    exit(2)
}

// One round of scripts/benchmark-vs-older.sh (SideBySide.swift); the script adds this line to an
// older build's main.swift as it is.
runSideBySideIfAsked()

if let index = CommandLine.arguments.firstIndex(of: "--launch") {
    do {
        try runLaunchStep(CommandLine.arguments.dropFirst(index + 1).first ?? "")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("Benchmarks --launch: \(error)\n".utf8))
        exit(1)
    }
}

let quick = CommandLine.arguments.contains("--quick")
let microSamples = quick ? 41 : 301
let clock = ContinuousClock()
let started = clock.now
let table = ResultTable()

/// Samples for saving and loading a set of `count` settings.
@MainActor
func setSamples(_ count: Int) -> Int {
    switch count {
    case ...20: quick ? 21 : 201
    case ...200: quick ? 15 : 101
    default: quick ? 5 : 41
    }
}

print("AppSettings benchmarks (\(quick ? "quick" : "full") run), \(Date())")
print("\(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)")
print("")

// MARK: 1 and 2: one setting

@MainActor
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)  // Synchronization's Mutex
func measureOneSetting() throws {
    let suite = TemporarySuite()
    let settings = ReadWriteSettings(userDefaults: suite.defaults)
    let guarded = MutexSettings()
    let observed = ObservedMutexSettings()
    let center = NotificationCenter()
    let notificationName = Notification.Name("BenchmarkNotification")
    let defaults = suite.defaults
    defaults.set(0.5, forKey: "volume")
    defaults.set("Ada Lovelace", forKey: "userName")
    let fast = 2_000
    let slow = 200
    let names = ["Ada Lovelace", "Grace Hopper"]

    try table.measure(
        "read Double",
        [
            .repeated("AppSettings @Setting", iterations: fast) { _ in blackHole(Int(settings.volume)) },
            .repeated("Mutex-guarded property", iterations: fast) { _ in blackHole(Int(guarded.volume)) },
            .repeated("Mutex-guarded property + Observation access", iterations: fast) { _ in
                blackHole(Int(observed.volume))
            },
            .repeated("UserDefaults.double(forKey:)", iterations: slow) { _ in
                blackHole(Int(defaults.double(forKey: "volume")))
            },
        ],
        samples: microSamples
    )
    try table.measure(
        "read String",
        [
            .repeated("AppSettings @Setting", iterations: fast) { _ in blackHole(settings.userName.utf8.count) },
            .repeated("Mutex-guarded property", iterations: fast) { _ in blackHole(guarded.userName.utf8.count) },
            .repeated("UserDefaults.string(forKey:)", iterations: slow) { _ in
                blackHole(defaults.string(forKey: "userName")?.utf8.count ?? 0)
            },
        ],
        samples: microSamples
    )
    try table.measure(
        "write Double",
        [
            .repeated("AppSettings @Setting", iterations: fast) { settings.volume = $0 & 1 == 0 ? 0.25 : 0.75 },
            .repeated("Mutex-guarded property", iterations: fast) { guarded.volume = $0 & 1 == 0 ? 0.25 : 0.75 },
            .repeated("Mutex-guarded property + withMutation + one post", iterations: fast) {
                observed.volume = $0 & 1 == 0 ? 0.25 : 0.75
            },
            .repeated("NotificationCenter.post alone (no observer)", iterations: fast) { index in
                center.post(name: notificationName, object: nil, userInfo: ["index": index])
            },
            .repeated("UserDefaults.set(_:forKey:)", iterations: slow) {
                defaults.set($0 & 1 == 0 ? 0.25 : 0.75, forKey: "volume")
            },
        ],
        samples: microSamples
    )
    try table.measure(
        "write String",
        [
            .repeated("AppSettings @Setting", iterations: fast) { settings.userName = names[$0 & 1] },
            .repeated("Mutex-guarded property", iterations: fast) { guarded.userName = names[$0 & 1] },
            .repeated("UserDefaults.set(_:forKey:)", iterations: slow) {
                defaults.set(names[$0 & 1], forKey: "userName")
            },
        ],
        samples: microSamples
    )
}

// MARK: 3 to 6: a settings set

/// Saves and loads a set of `count` settings the three ways; records the blob sizes.
@MainActor
func measureSet<Settings: BenchmarkSettingsSet, Plain: BenchmarkPlainSet>(
    _ settingsType: Settings.Type,
    _ plainType: Plain.Type,
    count: Int
) throws {
    let archiveSuite = TemporarySuite()
    let perKeySuite = TemporarySuite()
    let plistSuite = TemporarySuite()
    let plistKey = "PlainSettings"
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    let decoder = PropertyListDecoder()

    // The first instance of a class finds its settings by reflection; later ones reuse that.
    var firstInstance: Settings?
    let firstInstanceTime = nanoseconds { firstInstance = Settings(userDefaults: archiveSuite.defaults) }
    guard let settings = firstInstance else { return }
    var plain = Plain()
    var perKey = PerKeySettings(count: count)
    let samples = setSamples(count)

    // Saving (each sample first changes one setting; a save writes the whole set).
    let save = "save \(count)"
    try table.measure(
        save,
        [
            Contender(name: "AppSettings synchronizeToUserDefaults()") {
                settings.makeDirty()
                return try nanoseconds { try settings.synchronizeToUserDefaults() }
            },
            Contender(name: "(a) set(_:forKey:) per setting + synchronize()") {
                perKey.makeDirty()
                return nanoseconds {
                    perKey.write(to: perKeySuite.defaults)
                    perKeySuite.defaults.synchronize()
                }
            },
            Contender(name: "(b) PropertyListEncoder + set + synchronize()") {
                plain.makeDirty()
                return try nanoseconds {
                    plistSuite.defaults.set(try encoder.encode(plain), forKey: plistKey)
                    plistSuite.defaults.synchronize()
                }
            },
        ],
        samples: samples,
        settingCount: count
    )
    // Saving when another writer stored the set since (each sample: the other writer changes
    // another setting and saves, untimed), so the save merges; the plain save takes turns with it.
    if count <= 200 {
        let otherWriter = Settings(userDefaults: archiveSuite.defaults)
        var otherValue = 0
        try table.measure(
            "merge \(count)",
            [
                Contender(name: "AppSettings synchronizeToUserDefaults(), nobody else wrote") {
                    settings.makeDirty()
                    return try nanoseconds { try settings.synchronizeToUserDefaults() }
                },
                Contender(name: "AppSettings synchronizeToUserDefaults(), another writer changed the set") {
                    otherValue += 1
                    try otherWriter.update(from: ["setting1": otherValue])
                    try otherWriter.synchronizeToUserDefaults()
                    settings.makeDirty()
                    return try nanoseconds { try settings.synchronizeToUserDefaults() }
                },
            ],
            samples: samples,
            settingCount: count
        )
    }
    try table.measure(
        "encode \(count)",
        [
            Contender(name: "AppSettings _archivedBytes()") {
                try nanoseconds { blackHole(try settings._archivedBytes().count) }
            },
            Contender(name: "PropertyListEncoder.encode (binary)") {
                try nanoseconds { blackHole(try encoder.encode(plain).count) }
            },
        ],
        samples: samples,
        settingCount: count
    )

    // What the stored schema (`$schema`, issue 31) costs: the same set archived and loaded with
    // and without it, taking turns in one process.
    let withSchema = try settings._archivedBytes()
    let withoutSchema = try settings._archivedBytesWithoutSchema()
    try table.measure(
        "schema \(count)",
        [
            // Each pair in both orders: the harness's first contender of a round pays for what the
            // previous measurement left in the caches.
            Contender(name: "archive without $schema") {
                try nanoseconds { blackHole(try settings._archivedBytesWithoutSchema().count) }
            },
            Contender(name: "archive with $schema") {
                try nanoseconds { blackHole(try settings._archivedBytes().count) }
            },
            Contender(name: "archive without $schema (again)") {
                try nanoseconds { blackHole(try settings._archivedBytesWithoutSchema().count) }
            },
            Contender(name: "load the archive without $schema") {
                nanoseconds { blackHole(settings._loadCopy(fromStoredBytes: withoutSchema).error == nil ? 1 : 0) }
            },
            Contender(name: "load the archive with $schema") {
                nanoseconds { blackHole(settings._loadCopy(fromStoredBytes: withSchema).error == nil ? 1 : 0) }
            },
            Contender(name: "load the archive without $schema (again)") {
                nanoseconds { blackHole(settings._loadCopy(fromStoredBytes: withoutSchema).error == nil ? 1 : 0) }
            },
        ],
        samples: samples,
        settingCount: count
    )
    table.add(
        "schema \(count)", "bytes of $schema in the archive", Double(withSchema.count - withoutSchema.count),
        reference: Double(withoutSchema.count), settingCount: count, isBytes: true)

    // What was saved loads back whole.
    let check = Settings(userDefaults: archiveSuite.defaults)
    guard check.lastLoadError == nil, check.isEqual(settings) else {
        fatalError("\(Settings.self) did not load back what it saved: \(String(describing: check.lastLoadError))")
    }

    // Loading at launch (each sample first re-reads the domains from disk, untimed).
    let load = "load \(count)"
    try table.measure(
        load,
        [
            Contender(name: "AppSettings init(userDefaults:)") {
                archiveSuite.defaults.synchronize()
                var loaded: Settings?
                let time = nanoseconds { loaded = Settings(userDefaults: archiveSuite.defaults) }
                blackHole(loaded?.checksum ?? 0)
                return time
            },
            Contender(name: "(a) typed read per setting") {
                perKeySuite.defaults.synchronize()
                return nanoseconds { blackHole(perKey.read(from: perKeySuite.defaults)) }
            },
            Contender(name: "(b) data(forKey:) + PropertyListDecoder") {
                plistSuite.defaults.synchronize()
                return try nanoseconds {
                    guard let data = plistSuite.defaults.data(forKey: plistKey) else { return }
                    blackHole(try decoder.decode(Plain.self, from: data).checksum)
                }
            },
        ],
        samples: samples,
        settingCount: count
    )
    table.add(load, "first instance of the class (reflection)", firstInstanceTime, settingCount: count)

    // Sizes.
    let archiveSize = Double(try settings._archivedBytes().count)
    let plistSize = Double(try encoder.encode(plain).count)
    table.add(
        "blob \(count)", "AppSettings archive", archiveSize, reference: archiveSize, settingCount: count, isBytes: true)
    table.add(
        "blob \(count)", "PropertyListEncoder (binary)", plistSize, reference: archiveSize, settingCount: count,
        isBytes: true)
}

/// A synchronize with nothing changed.
@MainActor
func measureCleanSynchronize() throws {
    let suite = TemporarySuite()
    let settings = Settings200(userDefaults: suite.defaults)
    settings.makeDirty()
    try settings.synchronizeToUserDefaults()
    try table.measure(
        "clean synchronize",
        [
            .repeated("AppSettings synchronizeToUserDefaults()", iterations: 1_000) { _ in
                try settings.synchronizeToUserDefaults()
            },
            .repeated("UserDefaults.synchronize(), nothing changed", iterations: 20) { _ in
                blackHole(suite.defaults.synchronize() ? 1 : 0)
            },
        ],
        samples: microSamples
    )
}

// MARK: 3 and 4: growth from 200 to 2,000 settings

/// The sets of 200 and 2,000 settings saved and loaded in turns, in one measurement each, so
/// that a slow phase of a shared machine slows both alike; the linear-growth goal compares their
/// cost per setting from these rows.
@MainActor
func measureGrowth() throws {
    let smallSuite = TemporarySuite()
    let largeSuite = TemporarySuite()
    let small = Settings200(userDefaults: smallSuite.defaults)
    let large = Settings2000(userDefaults: largeSuite.defaults)
    func saving(_ settings: some BenchmarkSettingsSet) -> () throws -> Double {
        {
            settings.makeDirty()
            return try nanoseconds { try settings.synchronizeToUserDefaults() }
        }
    }
    func loading<Settings: BenchmarkSettingsSet>(_: Settings.Type, _ suite: TemporarySuite) -> () throws -> Double {
        {
            suite.defaults.synchronize()
            var loaded: Settings?
            let time = nanoseconds { loaded = Settings(userDefaults: suite.defaults) }
            blackHole(loaded?.checksum ?? 0)
            return time
        }
    }
    let samples = setSamples(2000)
    try table.measure(
        "growth save",
        [
            Contender(name: "200 settings", sample: saving(small)),
            Contender(name: "2000 settings", sample: saving(large)),
        ],
        samples: samples
    )
    try table.measure(
        "growth load",
        [
            Contender(name: "200 settings", sample: loading(Settings200.self, smallSuite)),
            Contender(name: "2000 settings", sample: loading(Settings2000.self, largeSuite)),
        ],
        samples: samples
    )
}

// MARK: Running

do {
    // The package supports macOS 14; the Mutex contenders of this part need macOS 15.
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
        try measureOneSetting()
    } else {
        print("one setting: skipped (its Mutex contenders need macOS 15)")
    }
    try measureCleanSynchronize()
    try measureSet(Settings20.self, PlainSettings20.self, count: 20)
    try measureBreakdown(Settings20.self, PlainSettings20.self, count: 20)
    try measureSet(Settings200.self, PlainSettings200.self, count: 200)
    try measureSet(Settings2000.self, PlainSettings2000.self, count: 2000)
    try measureGrowth()
} catch {
    print("error: \(error)")
    TemporarySuite.removeAll()
    exit(1)
}

// MARK: Report

TemporarySuite.removeAll()

print("")
print(table.markdown())
print("")
print("Goals (medians of this run):")

@MainActor
func goal(_ met: Bool, _ text: String) {
    print("- \(met ? "MET    " : "NOT MET") \(text)")
}

// The goals of the re-based performance issue: what per-setting observation and a notification
// per change cost anyone (an `@Observable`-style property written for threads) is the floor.
do {
    let appSettings = table.value("read Double", "AppSettings @Setting")
    let observed = table.value("read Double", "Mutex-guarded property + Observation access")
    let userDefaults = table.value("read Double", "UserDefaults.double(forKey:)")
    goal(
        appSettings <= 1.25 * observed,
        String(
            format: "read Double: %.2fx the Mutex-guarded property + Observation access (goal ≤ 1.25x)",
            appSettings / observed))
    goal(
        userDefaults >= 30 * appSettings,
        String(format: "read Double: %.1fx faster than UserDefaults (goal ≥ 30x)", userDefaults / appSettings))
    let write = table.value("write Double", "AppSettings @Setting")
    let contract = table.value("write Double", "Mutex-guarded property + withMutation + one post")
    goal(
        write <= 1.5 * contract,
        String(
            format: "write Double: %.2fx the Mutex-guarded property + withMutation + one post (goal ≤ 1.5x)",
            write / contract))
}
for (operation, perKey, plist) in [
    ("save", "(a) set(_:forKey:) per setting + synchronize()", "(b) PropertyListEncoder + set + synchronize()"),
    ("load", "(a) typed read per setting", "(b) data(forKey:) + PropertyListDecoder"),
] {
    let name = operation == "save" ? "AppSettings synchronizeToUserDefaults()" : "AppSettings init(userDefaults:)"
    for count in [20, 200, 2000] {
        let appSettings = table.value("\(operation) \(count)", name)
        let pathA = table.value("\(operation) \(count)", perKey)
        let pathB = table.value("\(operation) \(count)", plist)
        // A new object loading 20 settings: at most the Codable path (issue 27).
        let limit = operation == "load" && count == 20 ? 1.0 : 1.2
        goal(
            appSettings <= limit * pathB,
            "\(operation) \(count): "
                + String(format: "%.2fx the PropertyList path (b) (goal ≤ %.1fx)", appSettings / pathB, limit))
        goal(
            appSettings < pathA,
            "\(operation) \(count): " + String(format: "%.2fx the per-key path (a) (goal < 1x)", appSettings / pathA))
    }
    let perSetting200 = table.value("growth \(operation)", "200 settings") / 200
    let perSetting2000 = table.value("growth \(operation)", "2000 settings") / 2000
    goal(
        perSetting2000 <= 1.3 * perSetting200,
        "\(operation) 2000: "
            + String(format: "%.2fx the cost per setting at 200 (goal ≤ 1.3x)", perSetting2000 / perSetting200)
    )
}
let clean = table.value("clean synchronize", "AppSettings synchronizeToUserDefaults()")
goal(clean < 1_000, "clean synchronize: \(ResultTable.format(clean, isBytes: false)) (goal < 1 µs)")
for count in [20, 200, 2000] {
    let archive = table.value("blob \(count)", "AppSettings archive")
    let plist = table.value("blob \(count)", "PropertyListEncoder (binary)")
    let ratio = String(format: "blob %d: %.2fx the PropertyListEncoder data", count, archive / plist)
    if count == 20 {
        print("- REPORT  \(ratio) (an archive's fixed part dominates a small set)")
    } else {
        goal(archive <= 1.5 * plist, ratio + " (goal ≤ 1.5x)")
    }
}
print("")
print(String(format: "Total time: %.1f s", Double((clock.now - started).components.seconds)))
