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

/// The setting names of a set's values (the inspector's form): each stored name, and the dotted
/// paths into nested objects.
func settingNames(in values: [String: Any], prefix: String = "") -> [String] {
    values.keys.sorted().filter { !$0.hasPrefix("$") }.flatMap { name -> [String] in
        guard let nested = values[name] as? [String: Any] else { return [prefix + name] }
        return [prefix + name] + settingNames(in: nested, prefix: prefix + name + ".")
    }
}

/// What to add to "no setting 'volum'", in parentheses: the names near it (the same but for case, or at most two
/// letters changed, added or left out), else the set's names (the first 20).
func nearNamesText(_ name: String, among names: [String]) -> String {
    func distance(_ left: [Character], _ right: [Character]) -> Int {
        var previous = Array(0...right.count)
        for (index, character) in left.enumerated() {
            var current = [index + 1]
            for (other, otherCharacter) in right.enumerated() {
                current.append(
                    min(
                        previous[other + 1] + 1, current[other] + 1,
                        previous[other] + (character == otherCharacter ? 0 : 1)))
            }
            previous = current
        }
        return previous[right.count]
    }
    let lowered = Array(name.lowercased())
    let near = names.filter { distance(lowered, Array($0.lowercased())) <= min(2, max(1, name.count / 3)) }
    if !near.isEmpty { return " (did you mean \(near.map { "'\($0)'" }.joined(separator: " or "))?)" }
    guard !names.isEmpty else { return "" }
    return " (its settings: " + names.prefix(20).joined(separator: ", ") + (names.count > 20 ? ", ..." : "") + ")"
}
