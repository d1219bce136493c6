import AppSettings
import Foundation

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
