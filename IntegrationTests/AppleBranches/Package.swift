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
        // The package's test library (a link to its folder), for the suite below.
        .target(
            name: "AppSettingsTesting",
            dependencies: ["AppSettings"],
            swiftSettings: [.define("APPLE_STAND_INS"), .enableUpcomingFeature("ExistentialAny")]
        ),
        // The stored-set inspector and editor (a link to the package's folder), for the suite below.
        .target(
            name: "AppSettingsStoredSets",
            dependencies: ["AppSettings"],
            swiftSettings: [.define("APPLE_STAND_INS"), .enableUpcomingFeature("ExistentialAny")]
        ),
        // The decoder's Apple branch, against Apple's NSCoder (see NSCoder+Apple.swift): compiled only.
        .target(
            name: "AppleCoder",
            swiftSettings: [.define("APPLE_STAND_INS_NSCODER"), .enableUpcomingFeature("ExistentialAny")]
        ),
        // The package's own test suite, on the library's Apple build over the model of Apple's
        // behaviour (`TemporarySuite` makes `AppleUserDefaults`). Left out, each for one reason:
        .testTarget(
            name: "AppSettingsTestsOnModel",
            dependencies: ["AppSettings", "AppSettingsTesting", "AppSettingsStoredSets", "AppleStandIns"],
            exclude: [
                // Second processes: the host and the tool are built against corelibs' store, and
                // the stand-ins' notices do not leave the process.
                "Processes",  // the folder, whole: each of its tests starts the test host
                "Tool/InspectorCommandTests.swift", "Tool/SettingsToolTests.swift", "Tool/ToolValueTests.swift",
                "Tool/ToolSchemaTests.swift", "Tool/ToolWordsTests.swift", "SettingsApp/SettingsAppToolTests.swift",
                // The schema against Python's validator and the tool: a second process, and the
                // tool's module (the schema itself is checked on the model by SchemaTests).
                "Documents/SchemaValidatorTests.swift",
                "Support/ChildProcess.swift", "Support/BuiltExecutable.swift", "Support/ProcessTripleSettings.swift",
                // The replica schedules: their other processes' saves are the test host's (the
                // replicas' rule itself is checked on the model by ReplicaTests).
                "Replicas/ReplicaScheduleTests.swift", "Support/ReplicaModel.swift", "Support/ReplicaSchedule.swift",
                "Support/ReplicaScheduleRun.swift", "Support/ReplicaScheduleRun+Checks.swift",
                // Linux-only machinery: the recovery copy and inotify (Apple's daemon writes atomically
                // and notify(3) tells other processes; the store's Apple tests are AppleBranchTests).
                "Store/RecoveryCopyTests.swift", "Store/StoreWatcherTests.swift",
                // A module of the main package built without reflection metadata (a build setting
                // of that package's).
                "Values/TypeNameTests.swift",
                // Hostile files, links and processes against the Linux store's own files.
                "Store/HostileMachineTests.swift", "Store/HostileMachineTests+Waits.swift",
                "Store/HostileMachineTests+Reads.swift", "Store/HostileMachineTests+Names.swift",
                "Store/HostileMachineTests+FailedSaves.swift",
                // Compiled out (`#if os(Linux) && !APPLE_STAND_INS`), for the same reason: in
                // Store/DataSafetyTests+LinuxStore.swift, the tests of the Linux domain file, recovery
                // copy and lock file; in Overrides/OverrideTests+ManagedConfiguration.swift, the half of
                // `configurationDirectories` that reads `$XDG_CONFIG_DIRS` files (Apple platforms read
                // the managed app configuration).
            ],
            swiftSettings: [.define("APPLE_STAND_INS")]
        ),
        .testTarget(
            name: "AppleBranchTests",
            dependencies: ["AppSettings", "AppSettingsStoredSets", "AppSettingsTesting", "AppleStandIns"],
            swiftSettings: [.define("APPLE_STAND_INS")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
