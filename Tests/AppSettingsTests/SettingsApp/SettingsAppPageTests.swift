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
    @Test func theIssuesClassHasExactlyItsFourSpecifiers() throws {
        let specifiers = try settingsAppSpecifiers(SettingsAppPageSettings.settingsBundlePage())
        let expected: [NSDictionary] = [
            [
                "Type": "PSToggleSwitchSpecifier", "Key": "SettingsAppPage.dontDimScreen",
                "Title": "Don't dim the screen", "DefaultValue": false,
            ],
            [
                "Type": "PSSliderSpecifier", "Key": "SettingsAppPage.soundLevel", "Title": "Sound level",
                "DefaultValue": 0.7, "MinimumValue": 0.0, "MaximumValue": 1.0,
            ],
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
            [
                "Type": "PSSliderSpecifier", "Key": "SettingsAppNumbers.pageCount", "Title": "Page count",
                "DefaultValue": 4.0, "MinimumValue": 1.0, "MaximumValue": 10.0,
            ],
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

    @Test func thePageIsTheSameBytesEveryTime() {
        #expect(SettingsAppPageSettings.settingsBundlePage() == SettingsAppPageSettings.settingsBundlePage())
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
        let (page, lines) = AppSettingsLog.capture { SettingsAppOwnTypeSettings.settingsBundlePage() }
        #expect(try settingsAppSpecifiers(page).map { $0["Key"] as? String } == ["SettingsAppOwnType.shown"])
        #expect(lines.count == 1)
        #expect(lines.first?.contains("SettingsAppOwnType.homepage: the Settings app cannot show its type") == true)
    }
}
