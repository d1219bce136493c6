import AppSettings
@_spi(AppSettingsTool) import AppSettingsStoredSets
import Foundation

// `appsettings settings-bundle`: the Settings app page of a stored set, from the schema it carries.

func settingsBundle(_ arguments: ArraySlice<String>) {
    let options = Arguments(arguments, options: ["--suite", "--key", "--output"])
    _ = options.operands([], for: "settings-bundle")
    let output = options.required("--output", for: "settings-bundle")
    let set = storedSet(options, for: "settings-bundle")
    guard let data = set.userDefaults.data(forKey: set.key) else { fail("the set under '\(set.key)' is not data") }
    let files: (page: Data, strings: Data)?
    do {
        files = try StoredSettingsInspector.settingsBundle(
            ofArchive: data, key: set.key, appGroup: options.isAppGroup ? options["--suite"] : nil)
    } catch {
        fail(error.description)
    }
    guard let files else {
        fail(
            "the set under '\(set.key)' carries no schema: it was stored by a version of AppSettings that "
                + "did not describe settings (the app's next save adds it)")
    }
    // A page with no element is no page: the set declares no setting `inSettingsApp: true`.
    let root = try? PropertyListSerialization.propertyList(from: files.page, format: nil) as? [String: Any]
    if (root?["PreferenceSpecifiers"] as? [Any])?.isEmpty == true {
        fail(
            "the set under '\(set.key)' shows no setting in the Settings app (the app declares none with "
                + "@Setting(inSettingsApp: true)); no page was written")
    }
    let bundle = URL(fileURLWithPath: output).appendingPathComponent("Settings.bundle")
    for (file, contents) in [("Root.plist", files.page), ("en.lproj/Root.strings", files.strings)] {
        let url = bundle.appendingPathComponent(file)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: url, options: .atomic)
        } catch {
            fail("\(url.path): \(error.localizedDescription)")
        }
        print(url.path)
    }
}
