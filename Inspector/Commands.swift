import AppSettings
@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation

// The commands that read or write one set of a suite: get, set, export, import, schema; and dump.

func dump(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--file", "--key"])
    guard options.operands.isEmpty else { usageError("unknown argument '\(options.operands[0])'") }
    guard (options["--suite"] == nil) != (options["--file"] == nil) else {
        usageError("dump takes one of --suite NAME and --file PATH")
    }
    let sets: [String: Any]
    let source: String
    if let suite = options["--suite"] {
        sets = StoredSettingsInspector.jsonObject(
            of: userDefaults(suite, appGroup: options.isAppGroup), key: options["--key"])
        source = "suite '\(suite)'"
    } else {
        let path = options["--file"] ?? ""
        let url = URL(fileURLWithPath: path)
        let data = contents(ofFile: path, limit: StoredSettingsEditor.maximumFileByteCount)
        // A recovery copy is named after its key: <key>.archive.
        let name =
            url.pathExtension == "archive" ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
        do {
            sets = try StoredSettingsInspector.jsonObject(
                ofFileContents: data, key: options["--key"], archiveName: name)
        } catch {
            if case .unreadableArchive(_, _, let reason) = error { fail("\(path): \(reason)") }
            fail("\(path): \(error)")
        }
        source = path
    }
    if let key = options["--key"], sets.isEmpty {
        fail("no settings set under '\(key)' in \(source)")
    }
    // As `get` does: a suite without a set (a misspelt name among them) is a failure, not `{}`.
    if options["--suite"] != nil, sets.isEmpty { fail("no settings set in \(source)") }
    print(StoredSettingsInspector.jsonText(sets), terminator: "")
}

func get(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"])
    let setting = options.operands(["SETTING"], for: "get")[0]
    let set = storedSet(options, for: "get")
    guard let value = value(of: setting, in: set.values) else {
        fail(
            "the set under '\(set.key)' has no setting '\(setting)'"
                + nearNamesText(setting, among: settingNames(in: set.values)))
    }
    if let string = value as? String {
        print(string)
    } else {
        print(jsonText(value))
    }
}

func set(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"])
    let operands = options.operands(["SETTING", "VALUE"], for: "set")
    let set = storedSet(options, for: "set")
    do {
        try StoredSettingsEditor.setValue(
            operands[1], forSetting: operands[0], userDefaults: set.userDefaults, key: set.key)
    } catch {
        fail(refusal(error, values: set.values))
    }
    noteCheckedByApp([operands[0]], set: set)
}

/// A refusal's text; a name that is no setting with the names near it.
func refusal(_ error: AppSettingsError, values: [String: Any]) -> String {
    guard case .unknownSetting(_, let setting) = error else { return error.description }
    let near = nearNamesText(setting, among: settingNames(in: values))
    let ending = "; nothing was changed"
    let text = error.description
    return text.hasSuffix(ending) ? text.dropLast(ending.count) + near + ending : text + near
}

/// Says, on standard error, which of the settings stored are checked by the app's `validate:`
/// too: the tool cannot run it, and the app may change the value at its next load.
func noteCheckedByApp(_ settings: [String], set: (userDefaults: UserDefaults, key: String, values: [String: Any])) {
    guard let data = set.userDefaults.data(forKey: set.key),
        let checked = try? StoredSettingsInspector.settingsCheckedByApp(ofArchive: data, key: set.key)
    else { return }
    let stored = settings.filter { setting in checked.contains { setting == $0 || setting.hasPrefix($0 + ".") } }
    guard !stored.isEmpty else { return }
    let names = stored.map { "'\($0)'" }.joined(separator: ", ")
    FileHandle.standardError.write(
        Data(
            ("appsettings: note: \(names) \(stored.count == 1 ? "is" : "are") checked by the app's validate: rule too, "
                + "which the tool cannot run: the app may change what was stored at its next load\n").utf8))
}

func remove(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"])
    _ = options.operands([], for: "remove")
    let suite = options.required("--suite", for: "remove")
    let key = options.required("--key", for: "remove")
    let defaults = userDefaults(suite, appGroup: options.isAppGroup)
    // The key as stored: the full key, or the postfix of one (as the other commands take it).
    let stored = StoredSettingsInspector.jsonObject(of: defaults).keys
    let fullKey = stored.contains(key) || !stored.contains("AppSettings." + key) ? key : "AppSettings." + key
    do {
        let backupKey = try StoredSettingsEditor.removeSet(userDefaults: defaults, key: fullKey)
        print("removed '\(fullKey)'; its bytes are kept under '\(backupKey)'")
    } catch {
        // As `get` says it: the sets there are.
        guard !stored.contains(fullKey) else { fail(error.description) }
        fail(
            "\(error.description); "
                + (stored.isEmpty
                    ? "the suite holds no settings set" : "its sets: \(stored.sorted().joined(separator: ", "))"))
    }
}

func export(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"])
    _ = options.operands([], for: "export")
    let set = storedSet(options, for: "export")
    let unreadable = set.values.filter { ($0.value as? [String: Any])?[StoredSettingsInspector.unreadableKey] != nil }
    guard unreadable.isEmpty else {
        fail(
            "settings \(unreadable.keys.sorted().joined(separator: ", ")) under '\(set.key)' cannot be read; "
                + "see 'appsettings dump --suite \(options["--suite"] ?? "") --key \(set.key)'")
    }
    print(StoredSettingsInspector.jsonText(set.values), terminator: "")
}

func importDocument(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key"], flags: ["--replace"])
    let path = options.operands(["FILE"], for: "import")[0]
    let set = storedSet(options, for: "import")
    let document = contents(ofFile: path, limit: StoredSettingsEditor.maximumDocumentByteCount)
    do {
        try StoredSettingsEditor.update(
            fromJSON: document,
            replacingAll: options.flags.contains("--replace"),
            userDefaults: set.userDefaults,
            key: set.key)
    } catch {
        fail("\(path): \(refusal(error, values: set.values))")
    }
    if let object = try? StoredSettingsEditor.jsonObject(ofDocument: document) {
        noteCheckedByApp(object.keys.sorted(), set: set)
    }
}

func schema(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key", "--format", "--bundle-id"])
    _ = options.operands([], for: "schema")
    let formatName = options["--format"] ?? "json"
    guard let format = StoredSettingsInspector.SchemaFormat(rawValue: formatName) else {
        usageError("--format takes json or appconfig, not '\(formatName)'")
    }
    let set = storedSet(options, for: "schema")
    guard let data = set.userDefaults.data(forKey: set.key) else { fail("the set under '\(set.key)' is not data") }
    let document: Data?
    let note: String?
    do {
        document = try StoredSettingsInspector.schema(
            ofArchive: data, key: set.key, format: format,
            bundleIdentifier: options["--bundle-id"] ?? options["--suite"] ?? "")
        note = try StoredSettingsInspector.schemaNote(ofArchive: data, key: set.key)
    } catch {
        fail(error.description)
    }
    guard let document else {
        fail(
            "the set under '\(set.key)' carries no schema: it was stored by a version of AppSettings that "
                + "did not describe settings (the app's next save adds it)")
    }
    FileHandle.standardOutput.write(document)
    // Standard output holds the schema alone; what it lacks is said on standard error.
    if let note { FileHandle.standardError.write(Data("appsettings: note: \(note)\n".utf8)) }
}

// MARK: Shared

/// The suite's `UserDefaults`; for an App Group, made with `UserDefaults(appGroup:)`, so that on
/// Apple platforms the tool's writes take the lock file in the group's container and post the
/// notice the app's live objects listen for, as the app's own writes do; otherwise with its name
/// recorded (`UserDefaults(recordedSuite:)`), so that its notices name the suite.
func userDefaults(_ suite: String, appGroup: Bool) -> UserDefaults {
    do {
        try StoredSettingsEditor.check(suiteName: suite)
    } catch {
        fail(error.description)
    }
    guard let userDefaults = appGroup ? UserDefaults(appGroup: suite) : UserDefaults(recordedSuite: suite) else {
        fail("'\(suite)' is not a suite name UserDefaults accepts")
    }
    return userDefaults
}

/// The one readable set that `--suite` and `--key` name, by its full key, with its values in the
/// inspector's form; fails when there is none or it cannot be read.
func storedSet(
    _ options: Arguments,
    for command: String
) -> (userDefaults: UserDefaults, key: String, values: [String: Any]) {
    let suite = options.required("--suite", for: command)
    let key = options.required("--key", for: command)
    let defaults = userDefaults(suite, appGroup: options.isAppGroup)
    guard let (fullKey, set) = StoredSettingsInspector.jsonObject(of: defaults, key: key).first else {
        let keys = StoredSettingsInspector.jsonObject(of: defaults).keys.sorted()
        fail(
            "no settings set under '\(key)' in suite '\(suite)'; "
                + (keys.isEmpty ? "the suite holds no settings set" : "its sets: \(keys.joined(separator: ", "))"))
    }
    guard let values = set as? [String: Any] else { fail("the set under '\(fullKey)' cannot be read") }
    if let reason = values[StoredSettingsInspector.unreadableKey] {
        fail("the set under '\(fullKey)' cannot be read: \(reason)")
    }
    return (defaults, fullKey, values)
}

/// The value of a stored name, or of a dotted path into nested objects when no name is `setting`.
func value(of setting: String, in values: [String: Any]) -> Any? {
    if let value = values[setting] { return value }
    var current: Any = values
    for component in setting.split(separator: ".", omittingEmptySubsequences: false) {
        guard let value = (current as? [String: Any])?[String(component)] else { return nil }
        current = value
    }
    return setting.contains(".") ? current : nil
}

/// A JSON value as text: pretty printed, keys sorted.
func jsonText(_ value: Any, pretty: Bool = true) -> String {
    let options: JSONSerialization.WritingOptions =
        pretty
        ? [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
        : [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]
    do {
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
    } catch {
        fail("a value has no JSON form (\(error.localizedDescription))")
    }
}

/// A file's bytes (standard input's for `-`), at most `limit`; fails naming the file when there is
/// none, it cannot be read or it holds more (refused before anything is parsed).
func contents(ofFile path: String, limit: Int, status: Int32 = 1) -> Data {
    let handle: FileHandle
    if path == "-" {
        handle = FileHandle.standardInput
    } else {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            fail("\(path): no such file", status: status)
        }
        guard !isDirectory.boolValue else { fail("\(path): is a directory", status: status) }
        guard let file = FileHandle(forReadingAtPath: path) else { fail("\(path): cannot be read", status: status) }
        handle = file
    }
    do {
        return try StoredSettingsEditor.contents(
            of: handle.fileDescriptor, named: path == "-" ? "standard input" : path, limit: limit)
    } catch {
        fail("\(error)", status: status)
    }
}
