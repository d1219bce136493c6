import Foundation
import Testing

@testable import AppSettings

extension DataSafetyTests {
    @Test func aRenamedSettingIsMigrated() throws {
        final class Version1: AppSettingsObject, @unchecked Sendable {
            @Setting var fontSize = 12
            override var userDefaultsKeyPostfix: String { "Migrating" }
        }
        final class Version2: AppSettingsObject, @unchecked Sendable {
            @Setting var textSize = 14.0
            override var userDefaultsKeyPostfix: String { "Migrating" }
            override class var schemaVersion: Int { 2 }
            override func migrate(_ values: inout [String: Any], fromSchemaVersion version: Int) throws {
                if version < 2, let fontSize = values.removeValue(forKey: "fontSize") as? Int {
                    values["textSize"] = Double(fontSize) * 1.5
                }
            }
        }
        let old = Version1(userDefaults: suite.userDefaults)
        old.fontSize = 10
        try old.synchronizeToUserDefaults()
        let new = Version2(userDefaults: suite.another())
        #expect(new.lastLoadError == nil)
        #expect(new.textSize == 15)
        new.textSize = 16
        try new.synchronizeToUserDefaults()
        #expect(Version2(userDefaults: suite.another()).textSize == 16)
    }

    @Test func aFailingMigrationIsReported() throws {
        struct Refused: Error {}
        final class Strict: AppSettingsObject, @unchecked Sendable {
            @Setting var value = 1
            override var userDefaultsKeyPostfix: String { "Strict" }
            override class var schemaVersion: Int { 1 }
            override func migrate(_ values: inout [String: Any], fromSchemaVersion: Int) throws { throw Refused() }
        }
        var archive = HandMadeArchive()
        let root = archive.settingsRoot(["value": archive.add(.integer(5))])
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.Strict")
        let settings = Strict(userDefaults: suite.userDefaults)
        guard case .migrationFailed(_, 0, _) = settings.lastLoadError else {
            Issue.record("expected migrationFailed, got \(String(describing: settings.lastLoadError))")
            return
        }
    }
}
