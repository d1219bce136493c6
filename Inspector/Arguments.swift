import Foundation

/// A command's arguments: options with a value (`--suite NAME`), flags (`--replace`) and operands,
/// in any order. `--` ends the options: what follows is an operand even if it begins with `--`.
struct Arguments {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var operands: [String] = []
    /// Whether the suite was given with `--app-group` (its value is under `--suite`).
    private(set) var isAppGroup = false

    init(_ arguments: ArraySlice<String>, options: Set<String>, flags allowedFlags: Set<String> = []) {
        var remaining = arguments
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("--") {
                operands.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if allowedFlags.contains(argument) {
                flags.insert(argument)
            } else if argument == "--app-group", options.contains("--suite") {
                // The suite of an App Group, made as the app makes it (`UserDefaults(appGroup:)`),
                // so the tool takes the app's lock and posts the app's notice.
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    usageError("\(argument) needs a value")
                }
                guard values["--suite"] == nil else { usageError("give one of --suite and --app-group") }
                values["--suite"] = value
                isAppGroup = true
            } else if options.contains(argument) {
                guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
                    usageError("\(argument) needs a value")
                }
                guard values[argument] == nil else { usageError("\(argument) given more than once") }
                values[argument] = value
            } else {
                usageError("unknown argument '\(argument)'")
            }
        }
    }

    subscript(option: String) -> String? { values[option] }

    /// The value of a required option.
    func required(_ option: String, for command: String) -> String {
        guard let value = values[option] else { usageError("\(command) needs \(option)") }
        return value
    }

    /// Exactly `names.count` operands, named for the message.
    func operands(_ names: [String], for command: String) -> [String] {
        guard operands.count == names.count else {
            usageError("\(command) takes \(names.joined(separator: " ")), got \(operands.count) operand(s)")
        }
        return operands
    }
}
