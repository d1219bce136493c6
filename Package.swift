// swift-tools-version: 6.1
import PackageDescription

let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AppSettings",
    // Synchronization's `Mutex` sets the floor; the Observation module needs one release less.
    platforms: [.macOS(.v15), .iOS(.v18), .macCatalyst(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "AppSettings", targets: ["AppSettings"]),
        .executable(name: "appsettings", targets: ["AppSettingsInspector"]),
    ],
    targets: [
        .target(
            name: "AppSettings",
            exclude: ["Internal/README.md"],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .executableTarget(name: "AppSettingsInspector", dependencies: ["AppSettings"], path: "Inspector"),
        .executableTarget(name: "Example", dependencies: ["AppSettings"], path: "Example"),
        .executableTarget(name: "Benchmarks", dependencies: ["AppSettings"], path: "Benchmarks"),
        .executableTarget(
            name: "AppSettingsTestHost",
            dependencies: ["AppSettings"],
            path: "Tests/AppSettingsTestHost"
        ),
        .testTarget(
            name: "AppSettingsTests",
            dependencies: ["AppSettings", "AppSettingsTestHost", "AppSettingsInspector"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + upcomingFeatures
}
