import AppSettings
import Foundation

// `appsettings`: reads and edits the settings sets an app stored, without the app's classes.
// Reads go through the library's defensive reader; writes (`set`, `import`) through the library's
// store, as the app's own synchronizations do. Arguments are parsed by hand: the package uses no
// outside packages.

let usage = """
    usage: appsettings dump --suite NAME [--key KEY]
           appsettings dump --file PATH [--key KEY]
           appsettings get --suite NAME --key KEY SETTING
           appsettings set --suite NAME --key KEY [--] SETTING VALUE
           appsettings export --suite NAME --key KEY
           appsettings import --suite NAME --key KEY FILE [--replace]
           appsettings schema --suite NAME --key KEY [--format json|appconfig] [--bundle-id ID]
           appsettings remove --suite NAME --key KEY
           appsettings settings-bundle --suite NAME --key KEY --output DIR
           appsettings diff FILE FILE
           appsettings diff --suite NAME --key KEY FILE
           appsettings --help

    Reads and edits the AppSettings sets stored in a UserDefaults suite, without the app.

      dump     every set of a suite, a domain file or one set's archive, as JSON (keys sorted):
               { "<key>": { "<stored name>": value, ... } }
      get      one setting's value: a string as it is, any other value as JSON
      set      stores one value, typed like the value stored for the setting: the text as it is
               for a string, a date (ISO 8601), Data (base64), a URL or a UUID; JSON for numbers,
               Booleans, arrays and objects; null where nil is stored or the set's schema says
               the setting is optional, and an integer on the side of Int64.max the stored one
               is. A value may begin with '-'; one that begins with '--' follows '--'.
      export   one set as a JSON document (the form of AppSettingsObject.jsonRepresentation())
      import   stores a document (FILE, or - for standard input; at most 8 MiB, refused past that
               before it is parsed), all or nothing: each setting it
               names must be stored already and takes its value; an object (a nested settings
               object, a Codable value, a dictionary) changes the entries it names. With --replace,
               settings the document does not name are removed (the app loads their developer
               defaults) and objects are replaced whole. Its $schemaVersion must be the stored one.
      schema   the set's schema, as the app stored it with the set: JSON Schema (draft 2020-12) of
               its documents, exactly what the class's jsonSchema() returns, or with --format
               appconfig the AppConfig specification XML of its managed keys, for MDM consoles
               (bundleId: --bundle-id, else the suite name). A set stored by AppSettings 0.1.0
               has no developer defaults in its schema: a note on standard error says so
      remove   takes a set away, readable or not, keeping its bytes as the app keeps an
               unreadable set's: under <key>.unreadable-<ms> (printed); the app then loads its
               developer defaults. KEY is the full key or the postfix, as stored
      settings-bundle
               writes DIR/Settings.bundle/Root.plist and en.lproj/Root.strings: the page of the
               settings the set shows in the system Settings app (@Setting(inSettingsApp: true))
               and its titles, from the schema stored with it, as the app's settingsBundlePage()
               and settingsBundleStrings() make them (with --app-group, naming the group)
      diff     which settings differ between two exports, or between a suite's set and an export:
               "- name: value" only in the first, "+ name: value" only in the second,
               "~ name: first -> second" changed (nested objects by dotted path)

      --suite NAME  the suite, read through UserDefaults(suiteName:)
      --app-group NAME
                    instead of --suite: an App Group's suite, through UserDefaults(appGroup:), as
                    the app makes it: on Apple platforms set and import then take the group's lock
                    file and post the notice the app's live objects listen for
      --file PATH   a domain file (.plist, binary or XML), one set's archive, or a Linux recovery
                    copy (~/.config/AppSettings/<domain>/<key>.archive), told apart by content
      --key KEY     one set: its full key (AppSettings.MySettings) or its postfix (MySettings)
      SETTING       a stored name, or a dotted path into a nested object (audio.volume)
      -h, --help    this text

    Dates are ISO 8601 (UTC), Data base64, sets arrays, nil null. "$schemaVersion" is the schema
    version a set was stored with; "$unreadable" says why a set or a setting could not be read.
    Backups of unreadable sets (<key>.unreadable-<ms>) are listed as sets of their own.

    set and import write through the library's store: under its lock, merged with what is stored
    right then, with the recovery copy (Linux), and seen by running apps (an app object with
    reloadsWhenStoredSettingsChange reloads). A set that cannot be read entirely is never written.
    A set saved by an app that declares ranges and choices (@Setting(in:), CaseIterable enums)
    carries its schema: set and import refuse, writing nothing, a value it does not allow.

    Exit status: 0 on success, 1 when something cannot be read or is refused (nothing was
    written), 2 on wrong arguments. diff: 0 when nothing differs, 1 when something does, 2 on trouble.

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

let arguments = CommandLine.arguments.dropFirst()
// Help is a command (`appsettings -h`) or an option before `--`; a value may begin with `-`
// (`set … offset -h` stores "-h"), and after `--` anything is an operand.
if ["--help", "-h"].contains(arguments.first) || arguments.prefix(while: { $0 != "--" }).contains("--help") {
    print(usage, terminator: "")
    exit(0)
}
let commandArguments = arguments.dropFirst()
switch arguments.first {
case nil: usageError("missing command")
case "dump": dump(commandArguments)
case "get": get(commandArguments)
case "set": set(commandArguments)
case "export": export(commandArguments)
case "import": importDocument(commandArguments)
case "schema": schema(commandArguments)
case "remove": remove(commandArguments)
case "settings-bundle": settingsBundle(commandArguments)
case "diff": diff(commandArguments)
case let command?: usageError("unknown command '\(command)'")
}
