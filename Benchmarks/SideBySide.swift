import AppSettings
import Foundation

// MARK: One round of the comparison with an older build

/// `Benchmarks --side-by-side [SAMPLES]`: one round of scripts/benchmark-vs-older.sh, which runs
/// this mode of two builds in turns. It loads and saves a set of 20 settings the library's way
/// and the `Codable` way (`PropertyListDecoder` / `PropertyListEncoder` with `UserDefaults`), the
/// four taking turns as in every other measurement, and prints one line per contender:
/// `side-by-side <row> <median nanoseconds>`.
///
/// It uses the public API and the benchmark's own types only (`Settings20`, `PlainSettings20`,
/// `TemporarySuite`, the harness), which every build since the benchmark began has, so the script
/// copies this file unchanged into an older build's benchmark, with the one line of `main.swift`
/// that calls ``runSideBySideIfAsked()``.
@MainActor
func runSideBySideIfAsked() {
    guard let index = CommandLine.arguments.firstIndex(of: "--side-by-side") else { return }
    let samples = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 31
    do {
        try runSideBySideRound(samples: samples)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("Benchmarks --side-by-side: \(error)\n".utf8))
        exit(1)
    }
}

/// One round: `samples` samples of each contender, the medians printed.
@MainActor
func runSideBySideRound(samples: Int) throws {
    let archiveSuite = TemporarySuite()
    let aloneSuite = TemporarySuite()
    let plistSuite = TemporarySuite()
    defer { TemporarySuite.removeAll() }
    let plistKey = "PlainSettings20"
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    let decoder = PropertyListDecoder()

    let settings = Settings20(userDefaults: archiveSuite.defaults)
    settings.makeDirty()
    try settings.synchronizeToUserDefaults()
    // A set stored by an object no longer alive: its loads find no live object holding its bytes.
    do {
        let writer = Settings20(userDefaults: aloneSuite.defaults)
        writer.makeDirty()
        try writer.synchronizeToUserDefaults()
    }
    var plain = PlainSettings20()
    plistSuite.defaults.set(try encoder.encode(plain), forKey: plistKey)
    plistSuite.defaults.synchronize()

    let rows = [
        "load20.appsettings", "load20.codable", "save20.appsettings", "save20.codable", "load20alone.appsettings",
    ]
    let results = try medians(
        of: [
            // A new object of the class loading its set while another object of its key, which
            // saved that set, is alive (an app's `shared`), as `load 20` measures it.
            newObject(rows[0], in: archiveSuite),
            Contender(name: rows[1]) {
                plistSuite.defaults.synchronize()
                return try nanoseconds {
                    guard let data = plistSuite.defaults.data(forKey: plistKey) else { return }
                    blackHole(try decoder.decode(PlainSettings20.self, from: data).checksum)
                }
            },
            Contender(name: rows[2]) {
                settings.makeDirty()
                return try nanoseconds { try settings.synchronizeToUserDefaults() }
            },
            Contender(name: rows[3]) {
                plain.makeDirty()
                return try nanoseconds {
                    plistSuite.defaults.set(try encoder.encode(plain), forKey: plistKey)
                    plistSuite.defaults.synchronize()
                }
            },
            // The same with no live object of the key holding the stored bytes.
            newObject(rows[4], in: aloneSuite),
        ],
        samples: samples
    )
    for (row, result) in zip(rows, results) {
        print("side-by-side \(row) \(Int(result.rounded()))")
    }
}

/// A new object of `Settings20` loading what `suite` holds, each sample after `UserDefaults` re-read
/// the domain from disk, untimed.
@MainActor
private func newObject(_ name: String, in suite: TemporarySuite) -> Contender {
    Contender(name: name) {
        suite.defaults.synchronize()
        var loaded: Settings20?
        let time = nanoseconds { loaded = Settings20(userDefaults: suite.defaults) }
        blackHole(loaded?.checksum ?? 0)
        return time
    }
}
