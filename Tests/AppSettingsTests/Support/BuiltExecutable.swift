import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An executable product of this package that `swift test` builds next to the test bundle (the
/// test target depends on it).
enum BuiltExecutable {
    /// The executable named `name`: on Linux the tests run from
    /// `.build/<config>/AppSettingsPackageTests.xctest`, on macOS from inside
    /// `.build/<config>/AppSettingsPackageTests.xctest/Contents/MacOS/`, and the executables are in
    /// `.build/<config>/`: walks up from the test code until a directory holds it.
    static func url(named name: String) -> URL? {
        url(named: name, searchingUpFrom: candidates)
    }

    /// Where the test code may be: first the file of the image that holds this code (on macOS,
    /// SwiftPM runs Swift Testing inside `swiftpm-testing-helper`, which loads the test bundle, so
    /// neither the process's executable nor `argv[0]` is in the build directory), then the
    /// process's executable, the main bundle and `argv[0]`.
    static var candidates: [URL] {
        var candidates: [URL] = []
        if let image = imageOfThisCode { candidates.append(image) }
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: path))
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL)
        return candidates
    }

    /// The file of the loaded image (the test bundle's binary) that holds this code: `dladdr` on
    /// Apple platforms; on Linux (whose C library module leaves `dladdr` out) the mapping of
    /// `/proc/self/maps` that holds this image's header.
    static var imageOfThisCode: URL? {
        #if canImport(Darwin)
            var info = Dl_info()
            guard dladdr(#dsohandle, &info) != 0, let name = info.dli_fname else { return nil }
            return URL(fileURLWithPath: String(cString: name)).absoluteURL
        #else
            let address = UInt(bitPattern: #dsohandle)
            // Read to the end: corelibs' `String(contentsOfFile:)` stops at the first 4 KiB of a
            // file whose size `stat` gives as 0, as procfs does (under ThreadSanitizer its own
            // mappings fill those).
            guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps"),
                let bytes = try? handle.readToEnd()
            else { return nil }
            try? handle.close()
            let maps = String(decoding: bytes, as: UTF8.self)
            for line in maps.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                let range = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
                guard fields.count >= 6, range.count == 2, (range[0]..<range[1]).contains(address) else { continue }
                return URL(fileURLWithPath: fields[5...].joined(separator: " "))
            }
            return nil
        #endif
    }

    /// The first executable named `name` found walking up at most six directories from each of
    /// `candidates`.
    static func url(named name: String, searchingUpFrom candidates: [URL]) -> URL? {
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
