import AppSettings
import Foundation

// MARK: Where a load and a save of one set spend their time

/// The steps of `init(userDefaults:)` and `synchronizeToUserDefaults()` for a set of `count`
/// settings, each measured on its own (taking turns), so that the next regression is found by
/// reading the table: which step grew.
@MainActor
func measureBreakdown<Settings: BenchmarkSettingsSet>(_: Settings.Type, count: Int) throws {
    let suite = TemporarySuite()
    let empty = TemporarySuite()
    let settings = Settings(userDefaults: suite.defaults)
    settings.makeDirty()
    try settings.synchronizeToUserDefaults()
    guard let stored = try settings._readStoredBytes() else {
        fatalError("\(Settings.self) stored nothing")
    }
    let samples = setSamples(count)

    try table.measure(
        "load \(count) steps",
        [
            Contender(name: "1 read the stored bytes (store)") {
                suite.defaults.synchronize()
                return try nanoseconds { blackHole(try settings._readStoredBytes()?.count ?? 0) }
            },
            Contender(name: "2 decode them (defensive reader)") {
                try nanoseconds { blackHole(try Settings._decodeStoredBytes(stored)) }
            },
            Contender(name: "3 a new object, developer defaults, nothing stored") {
                var object: Settings?
                let time = nanoseconds { object = Settings(userDefaults: empty.defaults) }
                blackHole(object?.checksum ?? 0)
                return time
            },
            Contender(name: "4 decode, convert, validate, checkAfterDecode (scratch)") {
                var loaded: AppSettingsObject?
                let time = nanoseconds { loaded = settings._loadCopy(fromStoredBytes: stored).copy }
                blackHole(loaded == nil ? 0 : 1)
                return time
            },
        ],
        samples: samples,
        settingCount: count
    )
    try table.measure(
        "save \(count) steps",
        [
            Contender(name: "1 snapshot and archive") {
                settings.makeDirty()
                return try nanoseconds { blackHole(try settings._archivedBytes().count) }
            },
            Contender(name: "2 write (re-read, UserDefaults, recovery copy)") {
                try nanoseconds { try settings._writeStoredBytes(stored) }
            },
        ],
        samples: samples,
        settingCount: count
    )
}
