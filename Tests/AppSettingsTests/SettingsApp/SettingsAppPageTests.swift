import AppSettings
import AppSettingsTesting
import Foundation
import Testing

enum SettingsAppTheme: String, CaseIterable { case light, dark, darkBlue }
extension SettingsAppTheme: SettingValue {}

/// The issue's class: a toggle, a slider, a choice and a text field, and one setting not shown.
final class SettingsAppPageSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Don't dim the screen", inSettingsApp: true) var dontDimScreen = false
    @Setting(in: 0...1, description: "Sound level", inSettingsApp: true) var soundLevel: Float = 0.7
    @Setting(description: "Theme", inSettingsApp: true) var theme = SettingsAppTheme.light
    @Setting(description: "Your name", inSettingsApp: true) var name = "guest"
    @Setting var notShown = 3
    override var userDefaultsKeyPostfix: String { "SettingsAppPage" }
}

/// Numbers without a range (text fields with numeric keyboards), a stored name, titles from names,
/// `inSettingsApp: false`, an integer slider and integer choices.
enum SettingsAppLevel: Int, CaseIterable {
    case low = 1
    case high = 2
}
extension SettingsAppLevel: SettingValue {}

final class SettingsAppNumberSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(inSettingsApp: true, validate: { max($0, 0) }) var retryCount = 3
    @Setting(inSettingsApp: true) var unsignedLimit: UInt = 8
    @Setting("ratio", inSettingsApp: true) var scaleRatio = 0.25
    @Setting(in: 1...10, inSettingsApp: true) var pageCount = 4
    @Setting(inSettingsApp: true) var level = SettingsAppLevel.high
    @Setting(description: "Hidden", inSettingsApp: false) var hidden = true
    override var userDefaultsKeyPostfix: String { "SettingsAppNumbers" }
}

/// Shown settings kept where the Settings app never writes: a suite of their own.
final class SettingsAppSuiteSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(inSettingsApp: true) var shown = true
    override class var sharedStore: AppSettingsStore { .suite("com.example.elsewhere") }
}

/// Shown settings kept in an App Group's suite.
final class SettingsAppGroupSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(inSettingsApp: true) var shown = true
    override class var sharedStore: AppSettingsStore { .appGroup("group.com.example.shown") }
}

/// The page read back as a property list.
func settingsAppPage(_ data: Data) throws -> [String: Any] {
    try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
}

func settingsAppSpecifiers(_ data: Data) throws -> [NSDictionary] {
    try #require(try settingsAppPage(data)["PreferenceSpecifiers"] as? [[String: Any]]).map {
        NSDictionary(dictionary: $0)
    }
}

@Suite struct SettingsAppPageTests {
    /// Its four elements, the slider under a group titled as it, the element after it in a group
    /// of its own.
    @Test func theIssuesClassHasExactlyItsFourElementsAndTheSlidersGroups() throws {
        let specifiers = try settingsAppSpecifiers(SettingsAppPageSettings.settingsBundlePage())
        let expected: [NSDictionary] = [
            [
                "Type": "PSToggleSwitchSpecifier", "Key": "SettingsAppPage.dontDimScreen",
                "Title": "Don't dim the screen", "DefaultValue": false,
            ],
            ["Type": "PSGroupSpecifier", "Title": "Sound level"],
            [
                "Type": "PSSliderSpecifier", "Key": "SettingsAppPage.soundLevel", "Title": "Sound level",
                "DefaultValue": 0.7, "MinimumValue": 0.0, "MaximumValue": 1.0,
            ],
            ["Type": "PSGroupSpecifier"],
            [
                "Type": "PSMultiValueSpecifier", "Key": "SettingsAppPage.theme", "Title": "Theme",
                "DefaultValue": "light", "Values": ["light", "dark", "darkBlue"],
                "Titles": ["Light", "Dark", "Dark blue"],
            ],
            [
                "Type": "PSTextFieldSpecifier", "Key": "SettingsAppPage.name", "Title": "Your name",
                "DefaultValue": "guest", "KeyboardType": "Alphabet", "AutocapitalizationType": "None",
                "AutocorrectionType": "No",
            ],
        ]
        #expect(specifiers == expected)
        #expect(
            try settingsAppPage(SettingsAppPageSettings.settingsBundlePage())["ApplicationGroupContainerIdentifier"]
                == nil)
    }

    @Test func numbersWithoutARangeAreTextFieldsWithNumericKeyboards() throws {
        let specifiers = try settingsAppSpecifiers(SettingsAppNumberSettings.settingsBundlePage())
        let expected: [NSDictionary] = [
            [
                "Type": "PSTextFieldSpecifier", "Key": "SettingsAppNumbers.retryCount", "Title": "Retry count",
                "DefaultValue": "3", "KeyboardType": "NumbersAndPunctuation", "AutocapitalizationType": "None",
                "AutocorrectionType": "No",
            ],
            [
                "Type": "PSTextFieldSpecifier", "Key": "SettingsAppNumbers.unsignedLimit", "Title": "Unsigned limit",
                "DefaultValue": "8", "KeyboardType": "NumberPad", "AutocapitalizationType": "None",
                "AutocorrectionType": "No",
            ],
            [
                "Type": "PSTextFieldSpecifier", "Key": "SettingsAppNumbers.ratio", "Title": "Ratio",
                "DefaultValue": "0.25", "KeyboardType": "NumbersAndPunctuation", "AutocapitalizationType": "None",
                "AutocorrectionType": "No",
            ],
            ["Type": "PSGroupSpecifier", "Title": "Page count"],
            [
                "Type": "PSSliderSpecifier", "Key": "SettingsAppNumbers.pageCount", "Title": "Page count",
                "DefaultValue": 4.0, "MinimumValue": 1.0, "MaximumValue": 10.0,
            ],
            ["Type": "PSGroupSpecifier"],
            [
                "Type": "PSMultiValueSpecifier", "Key": "SettingsAppNumbers.level", "Title": "Level",
                "DefaultValue": 2, "Values": [1, 2], "Titles": ["Low", "High"],
            ],
        ]
        #expect(specifiers == expected)
    }

    @Test func theAppGroupPageNamesItsContainer() throws {
        let page = try settingsAppPage(SettingsAppPageSettings.settingsBundlePage(appGroup: "group.com.example.app"))
        #expect(page["ApplicationGroupContainerIdentifier"] as? String == "group.com.example.app")
        #expect(
            try settingsAppSpecifiers(SettingsAppPageSettings.settingsBundlePage(appGroup: "group.com.example.app"))
                == settingsAppSpecifiers(SettingsAppPageSettings.settingsBundlePage()))
    }

    @Test func thePageIsTheSameBytesEveryTime() throws {
        #expect(try SettingsAppPageSettings.settingsBundlePage() == SettingsAppPageSettings.settingsBundlePage())
    }

    @Test func thePageNamesItsStringsAndTheStringsHoldEveryTitleOnce() throws {
        #expect(try settingsAppPage(SettingsAppPageSettings.settingsBundlePage())["StringsTable"] as? String == "Root")
        let data = SettingsAppPageSettings.settingsBundleStrings()
        #expect(data.prefix(2) == Data([0xFF, 0xFE]), "UTF-16 with its byte-order mark")
        let text = try #require(String(data: data, encoding: .utf16))
        let entries = text.split(separator: "\n").filter { !$0.hasPrefix("/*") }
        #expect(
            entries == [
                #""Don't dim the screen" = "Don't dim the screen";"#, #""Sound level" = "Sound level";"#,
                #""Theme" = "Theme";"#, #""Light" = "Light";"#, #""Dark" = "Dark";"#,
                #""Dark blue" = "Dark blue";"#, #""Your name" = "Your name";"#,
            ])
        // As Foundation reads a strings file: a dictionary of each title to itself.
        let table = try #require(
            try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: String])
        #expect(table.count == 7 && table.allSatisfy { $0.key == $0.value })
    }

    @Test func anAppGroupPageChecksTheGroup() throws {
        #expect {
            try SettingsAppPageSettings.settingsBundlePage(appGroup: "com.example.app")
        } throws: { error in
            guard case .invalidSuiteName(let name, let reason)? = error as? AppSettingsError else { return false }
            return name == "com.example.app" && reason.contains("group.<name>")
        }
        #expect(throws: AppSettingsError.self) { try SettingsAppPageSettings.settingsBundlePage(appGroup: "group.") }
    }

    @Test func aClassKeptInASuiteTheSettingsAppNeverWritesHasNoPage() throws {
        #expect {
            try SettingsAppSuiteSettings.settingsBundlePage()
        } throws: { error in
            guard case .invalidSuiteName(let name, let reason)? = error as? AppSettingsError else { return false }
            return name == "com.example.elsewhere" && reason.contains("the Settings app never writes")
        }
        #expect(throws: AppSettingsError.self) {
            try SettingsAppSuiteSettings.settingsBundlePage(appGroup: "group.com.example.app")
        }
    }

    @Test func aClassKeptInAnAppGroupHasThePageOfItsGroup() throws {
        let page = try settingsAppPage(SettingsAppGroupSettings.settingsBundlePage())
        #expect(page["ApplicationGroupContainerIdentifier"] as? String == "group.com.example.shown")
        #expect(throws: AppSettingsError.self) {
            try SettingsAppGroupSettings.settingsBundlePage(appGroup: "group.com.example.other")
        }
    }

    @Test func anObjectShowingSettingsInASuiteTheSettingsAppNeverWritesIsReported() throws {
        let name = "AppSettingsTests-" + UUID().uuidString
        defer { TemporarySuite.remove(suiteNamed: name) }
        let (_, lines) = AppSettingsLog.capture { SettingsAppPageSettings(store: .suite(name)) }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("keeps them in .suite(\"\(name)\"): the Settings app writes") == true)
        let (_, again) = AppSettingsLog.capture { SettingsAppPageSettings(store: .suite(name)) }
        #expect(again.isEmpty, "once per class and store")
        let (_, inMemory) = AppSettingsLog.capture { SettingsAppPageSettings(store: .inMemory(name)) }
        #expect(inMemory.isEmpty)
    }
}

/// A type of the app's own conformed to `SettingsAppValue`: the Settings app has no element for a
/// `Codable` value, so it is left off the page, and logged.
struct SettingsAppPoint: Codable, Equatable { var x = 0 }
extension SettingsAppPoint: SettingValue, SettingsAppValue {}

final class SettingsAppOwnTypeSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(inSettingsApp: true) var homepage = SettingsAppPoint()
    @Setting(inSettingsApp: true) var shown = true
    override var userDefaultsKeyPostfix: String { "SettingsAppOwnType" }
}

@Suite struct SettingsAppOwnTypeTests {
    @Test func aTypeTheSettingsAppCannotShowIsLeftOffThePageAndLogged() throws {
        let (page, lines) = try AppSettingsLog.capture { try SettingsAppOwnTypeSettings.settingsBundlePage() }
        #expect(try settingsAppSpecifiers(page).map { $0["Key"] as? String } == ["SettingsAppOwnType.shown"])
        #expect(lines.count == 1)
        #expect(lines.first?.contains("SettingsAppOwnType.homepage: the Settings app cannot show its type") == true)
    }
}
