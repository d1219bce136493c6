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

print("AppSettings benchmarks (\(quick ? "quick" : "full") run), \(Date())")
print("\(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.operatingSystemVersionString)")
print("")

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
// A client's loop makes a new object where none of the set is live and releases it, each inside
// the timing: its registration and the store watcher it starts and stops are counted (issue 38).
do {
    let alone = table.value("load 20", "AppSettings init(userDefaults:), alone, made and released")
    let codable = table.value("load 20", "(b) data(forKey:) + PropertyListDecoder")
    goal(
        alone <= codable,
        String(
            format: "load 20, a new object alone, made and released: %.2fx the PropertyList path (b) (goal ≤ 1.0x)",
            alone / codable))
}
// The Codable path writes its domain file in place and nothing else; a save (Linux) flushes a
// recovery copy, so that a power loss cannot take the set, and writes the domain file itself, a new
// file flushed and renamed into place with its directory flushed, so that the app's other keys
// survive too. The same durability given to the Codable path (its domain file replaced the same way,
// a copy flushed alongside) shows what the rest of a save costs. Its domain file flushed after
// corelibs rewrote it in place is reported beside it: as many flushes, less safety, no new file.
// The copy alone was a save's durability before the library wrote the domain file (issue 40).
do {
    let whole = table.value("save 20 steps", "AppSettings synchronizeToUserDefaults(), whole")
    let plain = table.value("save 20 steps", "Codable path: PropertyListEncoder + set + synchronize()")
    let copyOnly = table.value(
        "save 20 steps", "Codable path + a copy flushed alongside (the durability before issue 40)")
    let inPlace = table.value(
        "save 20 steps", "Codable path + its domain file flushed in place and a copy flushed")
    let durable = table.value(
        "save 20 steps", "Codable path + its domain file replaced and a copy flushed (a save's durability)")
    goal(
        whole <= 1.1 * durable,
        "save 20: "
            + String(format: "%.2fx the Codable path with its domain file replaced and a copy flushed", whole / durable)
            + " (the same durability; goal ≤ 1.1x)")
    print(
        "- REPORT  save 20: "
            + String(
                format: "%.2fx the Codable path with its domain file flushed in place and a copy flushed",
                whole / inPlace)
            + " (flushed, but a kill or power loss during the in-place write can tear the suite's file)")
    goal(
        whole <= 1.35 * plain,
        "save 20: " + String(format: "%.2fx the plain Codable path (goal ≤ 1.35x)", whole / plain))
    print(
        "- REPORT  save 20: "
            + String(
                format: "%.2fx the Codable path with a copy flushed alone (the durability before issue 40)",
                whole / copyOnly))
    // Why the plain-path goal is out of reach at a save's durability: the file-system calls that
    // replace the domain file, against its in-place rewrite, alone add this much of the plain path.
    let inPlaceCalls = table.value(
        "save 20 steps", "the domain file's bytes alone, written in place (corelibs: truncate, write)")
    let replacingCalls = table.value("save 20 steps", "the domain file's bytes alone, replaced as a save replaces it")
    let replacing = ResultTable.format(replacingCalls, isBytes: false)
    let rewriting = ResultTable.format(inPlaceCalls, isBytes: false)
    print(
        "- REPORT  save 20: replacing the domain file instead of rewriting it in place adds "
            + String(format: "%.2fx the plain path", (replacingCalls - inPlaceCalls) / plain)
            + " by its file-system calls alone (\(replacing) against \(rewriting)); the Codable path given"
            + String(format: " a save's durability is %.2fx the plain one", durable / plain))
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
