import Foundation
import Testing

@testable import AppSettings

// Real processes need `Process`, which exists on macOS and Linux only.
#if os(Linux) || os(macOS)
    /// `appsettings settings-bundle`: the page made from a stored set's schema is the class's.
    @Suite struct SettingsAppToolTests {
        let suite = TemporarySuite()

        /// The page the tool writes; its strings must be those `settingsClass` makes.
        private func pageWritten(by arguments: [String], of settingsClass: AppSettingsObject.Type) throws -> Data {
            let directory = try ScratchDirectory("AppSettingsSettingsBundle")
            let result = try Inspector.runSucceeding(arguments + ["--output", directory.url.path])
            let bundle = directory.url.appendingPathComponent("Settings.bundle")
            let page = bundle.appendingPathComponent("Root.plist")
            let strings = bundle.appendingPathComponent("en.lproj/Root.strings")
            #expect(result.output == page.path + "\n" + strings.path + "\n")
            #expect(try Data(contentsOf: strings) == settingsClass.settingsBundleStrings())
            return try Data(contentsOf: page)
        }

        @Test func theToolWritesThePageTheClassMakes() throws {
            // The values stored differ from the defaults: the page's defaults are the class's.
            let shown = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            shown.dontDimScreen = true
            shown.theme = .dark
            try shown.synchronizeToUserDefaults()
            let numbers = SettingsAppNumberSettings(userDefaults: suite.userDefaults)
            numbers.retryCount = 5
            try numbers.synchronizeToUserDefaults()
            let page = try pageWritten(
                by: ["settings-bundle", "--suite", suite.name, "--key", "SettingsAppPage"],
                of: SettingsAppPageSettings.self)
            #expect(try page == SettingsAppPageSettings.settingsBundlePage())
            let numbersPage = try pageWritten(
                by: ["settings-bundle", "--suite", suite.name, "--key", "AppSettings.SettingsAppNumbers"],
                of: SettingsAppNumberSettings.self)
            #expect(try numbersPage == SettingsAppNumberSettings.settingsBundlePage())
            #expect(numbersPage != page)
        }

        @Test func anAppGroupsPageNamesTheGroup() throws {
            let group = TemporarySuite(prefix: "group.AppSettingsTests-")
            let settings = SettingsAppPageSettings(userDefaults: group.userDefaults)
            settings.name = "someone"
            try settings.synchronizeToUserDefaults()
            let page = try pageWritten(
                by: ["settings-bundle", "--app-group", group.name, "--key", "SettingsAppPage"],
                of: SettingsAppPageSettings.self)
            #expect(try page == SettingsAppPageSettings.settingsBundlePage(appGroup: group.name))
        }

        @Test func aSetWithoutSettingsShownWritesNoPage() throws {
            let settings = SchemaAudioSettings(userDefaults: suite.userDefaults)
            settings.volume = 3
            try settings.synchronizeToUserDefaults()
            // The class's page is empty; the tool refuses to write one, saying why (issue 48).
            #expect(try settingsAppSpecifiers(SchemaAudioSettings.settingsBundlePage()).isEmpty)
            let directory = try ScratchDirectory("AppSettingsSettingsBundle")
            try Inspector.expectRefusal(
                [
                    "settings-bundle", "--suite", suite.name, "--key", "SchemaAudioSettings", "--output",
                    directory.url.path,
                ],
                mentioning: "shows no setting in the Settings app")
            #expect(
                !FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("Settings.bundle").path))
        }

        @Test func theToolSeesTheSetAsBeforeAndItsEditsAreShown() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            let sets = try Inspector.runSucceeding(["dump", "--suite", suite.name]).jsonObject()
            #expect(Array(sets.keys) == ["AppSettings.SettingsAppPage"])
            // An edit writes the shown key too, so the app's next load does not take the old value back.
            let edit = try Inspector.run(["set", "--suite", suite.name, "--key", "SettingsAppPage", "name", "Flo"])
            #expect(edit.status == 0, "\(edit.errors)")
            let other = suite.another()
            other.synchronize()
            #expect(other.object(forKey: "SettingsAppPage.name") as? String == "Flo")
            #expect(SettingsAppPageSettings(userDefaults: other).name == "Flo")
        }

        @Test func theOutputIsRequired() throws {
            let result = try Inspector.run(["settings-bundle", "--suite", suite.name, "--key", "SettingsAppPage"])
            #expect(result.status == 2)
            #expect(result.errors.contains("settings-bundle needs --output"))
        }
    }
#endif
