// Real second processes need `Process`, which exists on macOS and Linux only; on iOS, tvOS,
// watchOS and visionOS the tests that start one are left out and the rest of the suite runs.
#if os(Linux) || os(macOS)
    import Foundation
    import Testing

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A child process, the one way every test starts a process: an executable product of this
    /// package, or a program of the system (`flock`, `python3`). Its standard output and error go
    /// to files that can be read at any time (while it runs too), its standard input is the given
    /// bytes (or empty) or a file. A child still running when the last reference goes away is
    /// killed; its files are removed.
    final class ChildProcess {
        /// What a child left when it exited.
        struct Finished {
            var status: Int32
            var output: String
            var errors: String
        }

        /// What a child reads on its standard input.
        enum Input {
            case bytes(Data)
            /// A file read as it is, such as `/dev/zero`.
            case file(String)
        }

        private let process = Process()
        private let outputURL: URL
        private let errorURL: URL
        private let inputURL: URL

        /// Starts the executable product `executable` with `arguments`; `environment` is added to
        /// this process's environment, `standardInput` is what it reads. With a `launcher` (a program
        /// and its arguments, such as `setpriv` and its options), the launcher is run with the
        /// executable's path and `arguments` after its own.
        convenience init(
            _ executable: String, _ arguments: [String], environment: [String: String] = [:],
            standardInput: Input = .bytes(Data()), launcher: [String] = []
        ) throws {
            let url = try #require(
                BuiltExecutable.url(named: executable), "\(executable) not found next to the test binary")
            try self.init(
                program: url.path, arguments, environment: environment, standardInput: standardInput,
                launcher: launcher)
        }

        /// Starts the program at `program` (an absolute path) with `arguments`; as above.
        init(
            program: String, _ arguments: [String], environment: [String: String] = [:],
            standardInput: Input = .bytes(Data()), launcher: [String] = []
        ) throws {
            let name = URL(fileURLWithPath: program).lastPathComponent
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
            outputURL = base.appendingPathExtension("out")
            errorURL = base.appendingPathExtension("err")
            inputURL = base.appendingPathExtension("in")
            _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
            if let launcherProgram = launcher.first {
                process.executableURL = URL(fileURLWithPath: launcherProgram)
                process.arguments = launcher.dropFirst() + [program] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
            }
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            switch standardInput {
            case .bytes(let input):
                _ = FileManager.default.createFile(atPath: inputURL.path, contents: input)
                process.standardInput = try FileHandle(forReadingFrom: inputURL)
            case .file(let path):
                process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            }
            process.standardOutput = try FileHandle(forWritingTo: outputURL)
            process.standardError = try FileHandle(forWritingTo: errorURL)
            try process.run()
        }

        /// Runs the executable product `executable` to its end.
        static func run(
            _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data()
        ) throws -> Finished {
            try ChildProcess(executable, arguments, environment: environment, standardInput: .bytes(input))
                .waitUntilExit()
        }

        /// What the child printed on standard output so far.
        func output() -> String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

        /// What the child printed on standard error so far.
        func errors() -> String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

        var isRunning: Bool { process.isRunning }

        /// Waits until the child exits; returns its exit status and everything it printed.
        @discardableResult
        func waitUntilExit() -> Finished {
            process.waitUntilExit()
            return Finished(status: process.terminationStatus, output: output(), errors: errors())
        }

        /// Sends `signal` (SIGKILL unless told) to the child if it still runs, and waits until it exits.
        func kill(_ signal: Int32 = SIGKILL) {
            if process.isRunning { sendSignal(signal, to: process.processIdentifier) }
            process.waitUntilExit()
        }

        /// Waits (bounded by a generous deadline) until the child printed its first line.
        func waitForFirstLine() throws {
            let deadline = Date().addingTimeInterval(20)
            while !output().contains("\n"), process.isRunning, Date() < deadline { usleep(2_000) }
            try #require(output().contains("\n"), "the child printed no line: \(errors())")
        }

        deinit {
            if process.isRunning { sendSignal(SIGKILL, to: process.processIdentifier) }
            for url in [outputURL, errorURL, inputURL] { try? FileManager.default.removeItem(at: url) }
        }
    }

    extension ChildProcess.Finished {
        /// The same, required to have exited with status 0: the test stops otherwise, showing what
        /// the child printed on standard error.
        @discardableResult
        func requireSuccess(sourceLocation: SourceLocation = #_sourceLocation) throws -> Self {
            try #require(
                status == 0, "the child exited with status \(status): \(errors)", sourceLocation: sourceLocation)
            return self
        }

        /// What the child printed on standard output, required to be a JSON object.
        func jsonObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
                "not a JSON object: \(output)", sourceLocation: sourceLocation)
        }
    }

    /// `kill(2)`, named apart from `ChildProcess.kill(_:)`.
    private func sendSignal(_ signal: Int32, to processIdentifier: Int32) {
        _ = kill(processIdentifier, signal)
    }

    /// The AppSettingsTestHost executable (Tests/AppSettingsTestHost), built by `swift test` next to
    /// the test bundle: a process that reads and writes settings sets as another app would.
    enum TestHost {
        typealias Finished = ChildProcess.Finished
        typealias Running = ChildProcess

        /// Starts the host; `environment` is added to this process's environment.
        static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
            try ChildProcess("AppSettingsTestHost", arguments, environment: environment)
        }

        /// Starts a host loop (`sync-loop`, `count-loop`) and waits until it printed its first
        /// counter; the loop is killed when the returned child goes away, if not before.
        static func startLoop(_ arguments: [String]) throws -> ChildProcess {
            let loop = try start(arguments)
            try loop.waitForFirstLine()
            return loop
        }

        /// Runs the host to its end.
        static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Finished {
            try ChildProcess.run("AppSettingsTestHost", arguments, environment: environment)
        }

        /// Runs the host to its end, subject to files' permissions: as root (CI, containers), with
        /// `setpriv` dropping the capabilities that let root read and search any file
        /// (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`) from its bounding set, so a file of mode 000
        /// cannot be read, though the host is still the files' owner (it may `chmod` them).
        static func runHonoringPermissions(_ arguments: [String]) throws -> Finished {
            guard getuid() == 0 else { return try run(arguments) }
            let setpriv = "/usr/bin/setpriv"
            try #require(FileManager.default.isExecutableFile(atPath: setpriv), "\(setpriv) (util-linux) is needed")
            let launcher = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all", "--"]
            return try ChildProcess("AppSettingsTestHost", arguments, launcher: launcher).waitUntilExit()
        }
    }

    extension ChildProcess {
        /// Kills a host loop (`sync-loop`, `count-loop`) with SIGKILL after `delay` microseconds at
        /// most; returns the last counter it printed (one it had synchronized).
        func killAndLastCounter(within delay: UInt32) throws -> Int {
            usleep(UInt32.random(in: 0..<delay))
            kill()
            return try #require(
                output().split(separator: "\n").last.flatMap { Int($0) }, "no counter in \(output())")
        }
    }

    /// The `appsettings` executable, built by `swift test` next to the test bundle (the test target
    /// depends on it), run as a user runs it.
    enum Inspector {
        typealias Finished = ChildProcess.Finished

        /// Runs `appsettings` to its end; `input` is its standard input.
        static func run(_ arguments: [String], input: Data = Data()) throws -> Finished {
            try ChildProcess.run("appsettings", arguments, input: input)
        }

        /// Runs `appsettings` to its end, required to succeed (exit status 0) and expected to print
        /// nothing on standard error.
        @discardableResult
        static func runSucceeding(
            _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> Finished {
            let result = try run(arguments)
            try #require(result.status == 0, "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
            #expect(result.errors.isEmpty, "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
            return result
        }

        /// Runs `appsettings` to its end and expects a refusal: exit status `status`, nothing on
        /// standard output, one line on standard error (`appsettings: error: …`) that names `text`.
        static func expectRefusal(
            _ arguments: [String], status: Int32 = 1, mentioning text: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let result = try run(arguments)
            #expect(result.status == status, "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
            #expect(result.output.isEmpty, "\(arguments): \(result.output)", sourceLocation: sourceLocation)
            #expect(
                result.errors.hasPrefix("appsettings: error: ") && result.errors.hasSuffix("\n")
                    && result.errors.filter { $0 == "\n" }.count == 1,
                "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
            #expect(result.errors.contains(text), "\(arguments): \(result.errors)", sourceLocation: sourceLocation)
        }
    }

    /// The independent JSON Schema validator, `scripts/validate-json-schema.py` (Python's
    /// `jsonschema` package, draft 2020-12). `.ci/run` installs the package and sets
    /// `APPSETTINGS_REQUIRE_JSONSCHEMA=1`, so CI fails rather than skips without it; elsewhere a test
    /// is skipped with a printed reason when `python3` or the package is missing.
    enum SchemaValidatorScript {
        /// Runs the script with `arguments`; its standard output, or `nil` when it cannot run here
        /// (reported for `test`, a name to print).
        static func run(_ arguments: [String], for test: String) throws -> String? {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                    "scripts/validate-json-schema.py")
            let finished = try ChildProcess(program: "/usr/bin/env", ["python3", script.path] + arguments)
                .waitUntilExit()
            // 3: the package is missing; 127: no python3.
            if finished.status == 3 || finished.status == 127 {
                let reason = "skipped: \(finished.errors.isEmpty ? "no python3" : finished.errors)"
                if ProcessInfo.processInfo.environment["APPSETTINGS_REQUIRE_JSONSCHEMA"] == "1" {
                    Issue.record("the independent validator cannot run: \(reason)")
                } else {
                    print("\(test) \(reason)")
                }
                return nil
            }
            try #require(finished.status == 0, "\(finished.errors)")
            return finished.output
        }
    }
#endif
