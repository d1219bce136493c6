// swift-tools-version: 6.1
import PackageDescription

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AppSettings",
    // The Observation module sets the floor (the library's lock is `OSAllocatedUnfairLock` there,
    // not Synchronization's `Mutex`, which would need macOS 15 and iOS 18).
    platforms: [.macOS(.v14), .iOS(.v17), .macCatalyst(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "AppSettings", targets: ["AppSettings"]),
        // For test targets: `.isolatedAppSettings`, settings of each test's own, and
        // `CloudKeyValueStoreSimulator`.
        .library(name: "AppSettingsTesting", targets: ["AppSettingsTesting"]),
        // Stored sets read without the app's classes (`StoredSettingsInspector`, for a debug screen
        // or a support report) and, as SPI, edited (`StoredSettingsEditor`, the tool's writes).
        .library(name: "AppSettingsStoredSets", targets: ["AppSettingsStoredSets"]),
        .executable(name: "appsettings", targets: ["AppSettingsInspector"]),
    ],
    targets: [
        .target(
            name: "AppSettings",
            exclude: ["Internal/README.md"],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .target(name: "AppSettingsTesting", dependencies: ["AppSettings"]),
        .target(name: "AppSettingsStoredSets", dependencies: ["AppSettings"]),
        .executableTarget(
            name: "AppSettingsInspector",
            dependencies: ["AppSettings", "AppSettingsStoredSets"],
            path: "Inspector"
        ),
        .executableTarget(name: "Example", dependencies: ["AppSettings"], path: "Example"),
        .executableTarget(
            name: "Benchmarks",
            dependencies: ["AppSettings"],
            path: "Benchmarks",
            plugins: ["BenchmarkSettingsPlugin"]
        ),
        // The benchmark's large settings sets, generated at build time rather than committed.
        .executableTarget(name: "BenchmarkSettingsGenerator", path: "Plugins/BenchmarkSettingsGenerator"),
        .plugin(
            name: "BenchmarkSettingsPlugin",
            capability: .buildTool(),
            dependencies: ["BenchmarkSettingsGenerator"]
        ),
        .executableTarget(
            name: "AppSettingsTestHost",
            dependencies: ["AppSettings"],
            path: "Tests/AppSettingsTestHost"
        ),
        // A settings class built as an app with reflection metadata stripped builds it.
        .target(
            name: "ReflectionStrippedSettings",
            dependencies: ["AppSettings"],
            path: "Tests/ReflectionStrippedSettings",
            swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-reflection-metadata"])]
        ),
        .testTarget(
            name: "AppSettingsTests",
            dependencies: [
                "AppSettings", "AppSettingsTesting", "AppSettingsStoredSets", "AppSettingsTestHost",
                "AppSettingsInspector", "ReflectionStrippedSettings",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + upcomingFeatures
}
