import Foundation
import Testing

@testable import AppSettings

/// Stores a level no `validate:` limits, under the key `RepairedSettings` reads.
private final class UncheckedLevelSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var level = 5
    @Setting var nested = UncheckedNestedLevel()
    override var userDefaultsKeyPostfix: String { "RepairedSettings" }
}

private final class UncheckedNestedLevel: AppSettingsObject, @unchecked Sendable {
    @Setting var level = 5
}

/// Clamps `level` to 0...10 on the way in, and keeps `maximum` at least `minimum`.
private final class RepairedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(validate: { min(max($0, 0), 10) }) var level = 5
    @Setting var nested = ClampedNestedLevel()
    @Setting var minimum = 0
    @Setting var maximum = 10

    override func checkAfterDecode() {
        if maximum < minimum { maximum = minimum }
    }
}

private final class ClampedNestedLevel: AppSettingsObject, @unchecked Sendable {
    @Setting(validate: { min(max($0, 0), 10) }) var level = 5
}

/// A value a load repairs (`validate:` or `checkAfterDecode()`) is an unsaved change, so the next
/// save stores the repair; a load that repairs nothing leaves the object clean.
@Suite("A value repaired on load", .capturedLibraryLog)
struct LoadRepairTests {
    let suite = TemporarySuite.forSettings()

    private func storeUncheckedLevels(top: Int, nested: Int) throws {
        let writer = UncheckedLevelSettings(userDefaults: suite.userDefaults)
        writer.level = top
        writer.nested.level = nested
        try writer.synchronizeToUserDefaults()
    }

    @Test func aLoadThatRepairsNothingIsClean() throws {
        try storeUncheckedLevels(top: 7, nested: 3)
        let settings = RepairedSettings(userDefaults: suite.another())
        #expect(settings.level == 7)
        #expect(settings.nested.level == 3)
        #expect(!settings.hasUnsavedChanges)
    }

    @Test func aValueValidateRepairsIsUnsavedAndTheNextSaveStoresIt() throws {
        try storeUncheckedLevels(top: 42, nested: 3)
        let settings = RepairedSettings(userDefaults: suite.another())
        #expect(settings.level == 10)
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        #expect(UncheckedLevelSettings(userDefaults: suite.another()).level == 10)
    }

    @Test func aNestedValueValidateRepairsMakesTheSetUnsaved() throws {
        try storeUncheckedLevels(top: 7, nested: -4)
        let settings = RepairedSettings(userDefaults: suite.another())
        #expect(settings.nested.level == 0)
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        #expect(UncheckedLevelSettings(userDefaults: suite.another()).nested.level == 0)
    }

    @Test func aValueCheckAfterDecodeRepairsIsUnsavedAndTheNextSaveStoresIt() throws {
        let writer = RepairedSettings(userDefaults: suite.userDefaults)
        writer.minimum = 20  // an assignment runs no checkAfterDecode: maximum stays 10
        try writer.synchronizeToUserDefaults()
        let settings = RepairedSettings(userDefaults: suite.another())
        #expect(settings.maximum == 20)
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        let reloaded = RepairedSettings(userDefaults: suite.another())
        #expect(reloaded.maximum == 20)
        #expect(!reloaded.hasUnsavedChanges)
    }

    @Test func aRevertThatRepairsLeavesTheRepairUnsaved() throws {
        let settings = RepairedSettings(userDefaults: suite.userDefaults)
        try storeUncheckedLevels(top: 99, nested: 3)
        try settings.resetToUserDefaults()
        #expect(settings.level == 10)
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        #expect(UncheckedLevelSettings(userDefaults: suite.another()).level == 10)
    }

    @Test func aRevertThatRepairsNothingIsClean() throws {
        let settings = RepairedSettings(userDefaults: suite.userDefaults)
        try storeUncheckedLevels(top: 4, nested: 3)
        settings.level = 1
        try settings.resetToUserDefaults()
        #expect(settings.level == 4)
        #expect(!settings.hasUnsavedChanges)
    }
}
