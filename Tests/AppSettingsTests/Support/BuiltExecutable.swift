import Foundation

/// An executable product of this package that `swift test` builds next to the test bundle (the
/// test target depends on it).
enum BuiltExecutable {
    /// The executable named `name`: on Linux the tests run from
    /// `.build/<config>/AppSettingsPackageTests.xctest`, on macOS from inside
    /// `.build/<config>/AppSettingsPackageTests.xctest/Contents/MacOS/`, and the executables are in
    /// `.build/<config>/`: walks up from the test binary until a directory holds it.
    static func url(named name: String) -> URL? {
        var candidates: [URL] = []
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: path))
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL)
        for candidate in candidates {
            var directory = candidate.deletingLastPathComponent()
            for _ in 0..<6 {
                let executable = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: executable.path) { return executable }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}
