// swift-tools-version: 6.2
import PackageDescription

// The README's Swift snippets, as a user's package compiles them: scripts/check-readme-snippets.sh
// writes each ```swift block of README.md into a target below (README_*.swift, not committed) and
// builds the package with warnings as errors. The script's header says which block goes where.

let mainActorApp: [SwiftSetting] = [
    // Xcode 26's new app targets: default actor isolation MainActor, approachable concurrency.
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

// SwiftUI exists only on Apple platforms; elsewhere the snippets that import it are checked
// against a stand-in with the declarations of Apple's SDK that they use (a module named SwiftUI).
#if os(Linux) || os(Windows)
    let swiftUI: [Target.Dependency] = ["SwiftUI"]
    let swiftUITargets: [Target] = [.target(name: "SwiftUI", path: "Sources/SwiftUIStandIn")]
#else
    let swiftUI: [Target.Dependency] = []
    let swiftUITargets: [Target] = []
#endif

let package = Package(
    name: "ReadmeSnippets",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    dependencies: [.package(name: "AppSettings", path: "../..")],
    targets: swiftUITargets + [
        // The README's snippets in a target as SwiftPM makes one (no default isolation).
        .target(
            name: "MyApp",
            dependencies: [.product(name: "AppSettings", package: "AppSettings")] + swiftUI
        ),
        // The snippets marked <!-- snippet: main-actor -->: an app target as Xcode 26 makes one.
        .target(
            name: "MyXcodeApp",
            dependencies: [.product(name: "AppSettings", package: "AppSettings")] + swiftUI,
            swiftSettings: mainActorApp
        ),
        // The snippets that import Testing: the app's test target.
        .testTarget(
            name: "MyAppTests",
            dependencies: [
                "MyApp",
                .product(name: "AppSettings", package: "AppSettings"),
                .product(name: "AppSettingsTesting", package: "AppSettings"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every import a snippet needs must be written in it: a type or member of a module the snippet does
// not import is an error (as in a package that turns this on, and in Swift 7).
for target in package.targets where target.name != "SwiftUI" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
