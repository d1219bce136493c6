import AppSettings
import Foundation

// `swift run Example [show | set NAME VALUE | revert | reset | tour]`: the settings of a small
// app, stored in `UserDefaults.standard` across runs.

let settings = ExampleSettings.shared

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
}

func show() {
    print("Settings of \(type(of: settings)), stored under '\(settings.userDefaultsKey)' in UserDefaults.standard")
    // On Linux the library knows the files; on Apple platforms the preferences daemon owns them.
    if let file = settings.domainFileURL { print("  in \(file.path)") }
    if let copy = settings.recoveryCopyURL { print("  recovery copy: \(copy.path)") }
    for (name, value) in settings.dictionaryRepresentation().sorted(by: { $0.key < $1.key }) {
        print("  \(name) = \(value)")
    }
    if let error = settings.lastLoadError { print("  last load: \(error)") }
}

/// Sets one setting from text, through `update(from:)`: the same validation as in code.
func set(_ name: String, _ text: String) {
    guard settings.settingNames.contains(name) else {
        fail("no setting '\(name)'; settings: \(settings.settingNames.joined(separator: ", "))")
    }
    let current = settings.dictionaryRepresentation()[name]
    let value: Any
    switch current {
    case is Bool:
        guard let bool = Bool(text) else { fail("'\(name)' takes true or false, not '\(text)'") }
        value = bool
    case is Float, is Double:
        guard let number = Double(text) else { fail("'\(name)' takes a number, not '\(text)'") }
        value = number
    case is Int:
        guard let number = Int(text) else { fail("'\(name)' takes a whole number, not '\(text)'") }
        value = number
    case is [Any]:
        value = text.split(separator: ",").map(String.init)
    case is [String: Any]:
        fail("'\(name)' is a nested settings object; set its settings in code")
    default:
        value = text
    }
    do {
        try settings.update(from: [name: value])
        try settings.synchronizeToUserDefaults()
    } catch {
        fail("\(error)")
    }
    print("\(name) = \(settings.dictionaryRepresentation()[name] ?? "nil") (synchronized)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case nil, "show":
    guard arguments.count <= 1 else { fail("'show' takes no arguments") }
    show()
case "set":
    guard arguments.count == 3 else { fail("usage: swift run Example set NAME VALUE") }
    set(arguments[1], arguments[2])
case "revert":
    guard arguments.count == 1 else { fail("'revert' takes no arguments") }
    settings.soundLevel = 0.01
    print("changed soundLevel to \(settings.soundLevel) without synchronizing; unsaved: \(settings.hasUnsavedChanges)")
    do { try settings.resetToUserDefaults() } catch { print("revert: \(error)") }
    print("reverted to the stored state: soundLevel = \(settings.soundLevel); unsaved: \(settings.hasUnsavedChanges)")
case "reset":
    guard arguments.count == 1 else { fail("'reset' takes no arguments") }
    settings.resetToDeveloperDefaults()
    do { try settings.synchronizeToUserDefaults() } catch { fail("\(error)") }
    print("reset to developer defaults and synchronized")
    show()
case "tour":
    guard arguments.count == 1 else { fail("'tour' takes no arguments") }
    await Tour.run()
default:
    fail("unknown command '\(arguments[0])'; use show, set NAME VALUE, revert, reset or tour")
}
