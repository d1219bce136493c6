// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "DefaultIsolation",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [.package(name: "AppSettings", path: "../..")],
    targets: [
        .executableTarget(
            name: "DefaultIsolationCheck",
            dependencies: [
                .product(name: "AppSettings", package: "AppSettings"),
                // The README's sync snippet: `CloudKeyValueStoreSimulator`.
                .product(name: "AppSettingsTesting", package: "AppSettings"),
            ],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
        // The README's test with `.isolatedAppSettings`, in a test target configured as Xcode 26
        // configures one.
        .testTarget(
            name: "DefaultIsolationTests",
            dependencies: [
                .product(name: "AppSettings", package: "AppSettings"),
                .product(name: "AppSettingsTesting", package: "AppSettings"),
            ],
            swiftSettings: [
                .defaultIsolation(MainActor.self),
                .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
                .enableUpcomingFeature("InferIsolatedConformances"),
            ]
        ),
    ]
)
