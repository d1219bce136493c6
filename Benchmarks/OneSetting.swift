import Foundation

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
