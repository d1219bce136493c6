import AppSettings
import Foundation

// MARK: 3 to 6: a settings set

/// Samples for saving and loading a set of `count` settings.
@MainActor
func setSamples(_ count: Int) -> Int {
    switch count {
    case ...20: quick ? 21 : 201
    case ...200: quick ? 15 : 101
    default: quick ? 5 : 41
    }
}

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
            Contender(name: "AppSettings archivedBytes() (the bytes a save writes)") {
                try nanoseconds { blackHole(try TestingHooks(object: settings).archivedBytes().count) }
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
    let withSchema = try TestingHooks(object: settings).archivedBytes()
    let withoutSchema = try TestingHooks(object: settings).archivedBytesWithoutSchema()
    try table.measure(
        "schema \(count)",
        [
            // Each pair in both orders: the harness's first contender of a round pays for what the
            // previous measurement left in the caches.
            Contender(name: "archive without $schema") {
                try nanoseconds { blackHole(try TestingHooks(object: settings).archivedBytesWithoutSchema().count) }
            },
            Contender(name: "archive with $schema") {
                try nanoseconds { blackHole(try TestingHooks(object: settings).archivedBytes().count) }
            },
            Contender(name: "archive without $schema (again)") {
                try nanoseconds { blackHole(try TestingHooks(object: settings).archivedBytesWithoutSchema().count) }
            },
            Contender(name: "load the archive without $schema") {
                nanoseconds {
                    blackHole(
                        TestingHooks(object: settings).loadCopy(fromStoredBytes: withoutSchema).error == nil ? 1 : 0)
                }
            },
            Contender(name: "load the archive with $schema") {
                nanoseconds {
                    blackHole(TestingHooks(object: settings).loadCopy(fromStoredBytes: withSchema).error == nil ? 1 : 0)
                }
            },
            Contender(name: "load the archive without $schema (again)") {
                nanoseconds {
                    blackHole(
                        TestingHooks(object: settings).loadCopy(fromStoredBytes: withoutSchema).error == nil ? 1 : 0)
                }
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

    // A client's loop: a new object where no other object of the set is live, made and released
    // inside the timing (its registration, and the watcher it starts and stops, counted).
    let aloneSuite = TemporarySuite()
    aloneSuite.defaults.set(try TestingHooks(object: settings).archivedBytes(), forKey: settings.userDefaultsKey)
    aloneSuite.defaults.synchronize()

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
            Contender(name: "AppSettings init(userDefaults:), alone, made and released") {
                aloneSuite.defaults.synchronize()
                return nanoseconds { blackHole(Settings(userDefaults: aloneSuite.defaults).checksum) }
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
    let archiveSize = Double(try TestingHooks(object: settings).archivedBytes().count)
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
