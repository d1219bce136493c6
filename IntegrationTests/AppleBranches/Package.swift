// swift-tools-version: 6.1
import PackageDescription

// The library's Apple-only code, compiled and tested on Linux (scripts/check-apple-branches.sh).
//
// `AppSettings` here is the package's own source folder (a link), built with `APPLE_STAND_INS`:
// every block written for Apple platforms (`#if canImport(Darwin) || APPLE_STAND_INS`) is compiled
// instead of its Linux counterpart, against `AppleStandIns`, which declares the Apple APIs those
// blocks call with the exact signatures of Apple's SDKs (each file names where they come from) and
// implements them as Apple documents them, within one process. The tests run the Apple store's
// locking and its notices on that build.
let package = Package(
    name: "AppleBranches",
    targets: [
        .target(name: "AppleStandIns", swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        .target(
            name: "AppSettings",
            dependencies: ["AppleStandIns"],
            exclude: ["Internal/README.md", "Documentation.docc"],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: [
                .define("APPLE_STAND_INS"),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        // The decoder's Apple branch, against Apple's NSCoder (see NSCoder+Apple.swift): compiled only.
        .target(
            name: "AppleCoder",
            swiftSettings: [.define("APPLE_STAND_INS_NSCODER"), .enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "AppleBranchTests",
            dependencies: ["AppSettings", "AppleStandIns"],
            swiftSettings: [.define("APPLE_STAND_INS")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
