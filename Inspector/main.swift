import AppSettings
import Foundation

// `appsettings`: prints the settings sets stored in a UserDefaults suite, a domain file or one
// set's archive as JSON, read with the library's defensive reader, without the app's classes.
// Arguments are parsed by hand: the package uses no outside packages.

let usage = """
    usage: appsettings dump --suite NAME [--key KEY]
           appsettings dump --file PATH [--key KEY]
           appsettings --help

    Prints the AppSettings sets stored in a UserDefaults suite, in a domain file, or in one set's
    archive as JSON (keys sorted): { "<key>": { "<stored name>": value, ... } }.

      --suite NAME  the suite, read through UserDefaults(suiteName:)
      --file PATH   a domain file (.plist, binary or XML) or one set's archive (such as a Linux
                    recovery copy, ~/.config/AppSettings/<domain>/<key>.archive), told apart by content
      --key KEY     only this set: its full key (AppSettings.MySettings) or its postfix (MySettings)
      -h, --help    this text

    Dates are ISO 8601 (UTC), Data base64, sets arrays, nil null. "$schemaVersion" is the schema
    version a set was stored with; "$unreadable" says why a set or a setting could not be read.
    Backups of unreadable sets (<key>.unreadable-<ms>) are listed as sets of their own.
    Exit status: 0 on success, 1 when the file cannot be read or --key names no set, 2 on wrong arguments.

    """

/// Writes one line to standard error and exits.
func fail(_ message: String, status: Int32 = 1) -> Never {
    let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    FileHandle.standardError.write(Data("appsettings: error: \(oneLine)\n".utf8))
    exit(status)
}

func usageError(_ message: String) -> Never {
    fail("\(message) (see 'appsettings --help')", status: 2)
}

/// The options of `dump`.
struct DumpOptions {
    var suite: String?
    var file: String?
    var key: String?

    init(_ arguments: ArraySlice<String>) {
        var remaining = arguments
        while let argument = remaining.popFirst() {
            switch argument {
            case "--suite", "--file", "--key":
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    usageError("\(argument) needs a value")
                }
                switch argument {
                case "--suite": suite = Self.once(suite, value, argument)
                case "--file": file = Self.once(file, value, argument)
                default: key = Self.once(key, value, argument)
                }
            default:
                usageError("unknown argument '\(argument)'")
            }
        }
        guard (suite == nil) != (file == nil) else { usageError("dump takes one of --suite NAME and --file PATH") }
    }

    private static func once(_ current: String?, _ value: String, _ option: String) -> String {
        guard current == nil else { usageError("\(option) given more than once") }
        return value
    }
}

func dump(_ options: DumpOptions) {
    let sets: [String: Any]
    let source: String
    if let suite = options.suite {
        guard !suite.isEmpty, let userDefaults = UserDefaults(suiteName: suite) else {
            fail("'\(suite)' is not a suite name UserDefaults accepts")
        }
        sets = StoredSettingsInspector.jsonObject(of: userDefaults, key: options.key)
        source = "suite '\(suite)'"
    } else {
        let path = options.file ?? ""
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            fail("\(path): no such file")
        }
        guard !isDirectory.boolValue else { fail("\(path): is a directory") }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            fail("\(path): cannot be read (\(error.localizedDescription))")
        }
        // A recovery copy is named after its key: <key>.archive.
        let name =
            url.pathExtension == "archive" ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
        do {
            sets = try StoredSettingsInspector.jsonObject(ofFileContents: data, key: options.key, archiveName: name)
        } catch {
            if case .unreadableArchive(_, _, let reason) = error { fail("\(path): \(reason)") }
            fail("\(path): \(error)")
        }
        source = path
    }
    if let key = options.key, sets.isEmpty {
        fail("no settings set under '\(key)' in \(source)")
    }
    print(StoredSettingsInspector.jsonText(sets), terminator: "")
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage, terminator: "")
    exit(0)
}
switch arguments.first {
case nil: usageError("missing command")
case "dump": dump(DumpOptions(arguments.dropFirst()))
case let command?: usageError("unknown command '\(command)'")
}
