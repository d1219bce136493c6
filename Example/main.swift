import AppSettings
import Foundation

// `swift run Example [show | set NAME VALUE | revert | reset | tour]`: the settings of a small
// app, stored in `UserDefaults.standard` across runs. Overrides, never saved:
// `swift run Example -ExampleSettings.soundLevel 0.2`, `EXAMPLE_SETTINGS_THEME=dark swift run Example`.

let settings = ExampleSettings.shared

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
}

func show() {
    print("Settings of \(type(of: settings)), stored under '\(settings.userDefaultsKey)' in UserDefaults.standard")
    // On Linux the library knows the files; on Apple platforms the preferences daemon owns them.
    let store = settings.settingsStore
    if let file = store.domainFileURL { print("  in \(file.path)") }
    if let copy = store.recoveryCopyURL(forKey: settings.userDefaultsKey) { print("  recovery copy: \(copy.path)") }
    // Each setting as the app reads it, and where that value comes from.
    row("dontDimScreen", settings.dontDimScreen, settings.source(of: \.dontDimScreen))
    row("soundLevel", settings.soundLevel, settings.source(of: \.soundLevel))
    row("theme", settings.theme.rawValue, settings.source(of: \.theme))
    row("recentSearches", settings.recentSearches, settings.source(of: \.recentSearches))
    row("homePage", settings.homePage?.absoluteString ?? "nil", settings.source(of: \.homePage))
    row("window", "\(settings.window.width) x \(settings.window.height)", settings.source(of: \.window))
    row("audio.muted", settings.audio.muted, settings.source(of: \.audio.muted))
    row("audio.outputDevice", settings.audio.outputDevice, settings.source(of: \.audio.outputDevice))
    if let error = settings.lastLoadError { print("  last load: \(error)") }
    for ignored in settings.ignoredOverrides { print("  \(ignored)") }
}

func row(_ name: String, _ value: Any, _ source: SettingSource) {
    print("  \(name) = \(value)  (\(source))")
}

/// Sets one setting from text, through `update(fromJSON:)`: each value read by the setting's
/// declared type, with the same validation as in code. The text is a JSON value, put into the
/// document as written, so that numbers are read exactly (`0.9`, `true`, `null`, `["a", "b"]`,
/// `{"muted": true}` for the nested `audio`, `{"width": 640, "height": 480}` for the `Codable`
/// `window`); anything else is taken as a string (`dark`), and `nil` as `null`.
func set(_ name: String, _ text: String) {
    guard settings.settingNames.contains(name) else {
        fail("no setting '\(name)'; settings: \(settings.settingNames.joined(separator: ", "))")
    }
    func quoted(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
    let value = text == "nil" ? "null" : text
    do {
        do {
            try settings.update(fromJSON: Data("{\(quoted(name)): \(value)}".utf8))
        } catch AppSettingsError.malformedJSON {
            // Not JSON: the text itself.
            try settings.update(fromJSON: Data("{\(quoted(name)): \(quoted(text))}".utf8))
        }
        try settings.synchronizeToUserDefaults()
    } catch {
        fail("\(error)")
    }
    print("\(name) = \(settings.dictionaryRepresentation()[name] ?? "nil") (synchronized)")
}

let usage = """
    usage: swift run Example [show]          the settings, each with where its value comes from
           swift run Example set NAME VALUE  sets one setting (JSON: 0.9, true, null, ["a"]; or text) and saves
           swift run Example revert          changes soundLevel unsaved, then goes back to what is stored
           swift run Example reset           puts back the developer defaults and saves
           swift run Example tour            every capability, on a scratch suite it removes
           swift run Example --help          this text

    Overrides, never saved: swift run Example -ExampleSettings.soundLevel 0.2, or
    EXAMPLE_SETTINGS_THEME=dark swift run Example. The stored set: swift run appsettings dump --suite Example.

    """

// Help is asked for first: `-h` and `--help` are no `-key value` pair.
if CommandLine.arguments.dropFirst().contains(where: { ["--help", "-h", "help"].contains($0) }) {
    print(usage, terminator: "")
    exit(0)
}

// The command, without the `-key value` pairs that UserDefaults and the overrides read.
let arguments = commandArguments(CommandLine.arguments.dropFirst())

func commandArguments(_ all: ArraySlice<String>) -> [String] {
    var result: [String] = []
    var index = all.startIndex
    while index < all.endIndex {
        if all[index].count > 1, all[index].hasPrefix("-"), index + 1 < all.endIndex {
            index += 2
        } else {
            result.append(all[index])
            index += 1
        }
    }
    return result
}
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
    fail("unknown command '\(arguments[0])'; use show, set NAME VALUE, revert, reset or tour (see --help)")
}
