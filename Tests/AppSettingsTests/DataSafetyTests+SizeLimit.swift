import Foundation
import Testing

@testable import AppSettings

extension DataSafetyTests {
    @Test func aSetLargerThanFourMebibytesIsRefusedBeforeAnythingIsWritten() throws {
        final class Big: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        let settings = Big(userDefaults: suite.userDefaults)
        settings.payload = Data(count: 5 * 1024 * 1024)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let limit) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Big" && byteCount > limit && limit == SettingsStore.maximumDomainByteCount
        }
        #expect(suite.storedObject(forKey: "AppSettings.Big") == nil)
        #expect(settings.hasUnsavedChanges)
    }

    @Test func theDomainsOtherKeysCountTowardsTheLimit() throws {
        final class Medium: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        // Each part fits alone; together they do not.
        let third = SettingsStore.maximumDomainByteCount / 3
        suite.userDefaults.set(Data(count: third), forKey: "other code's data")
        let other = Medium(userDefaults: suite.userDefaults)
        other.payload = Data(count: third)
        try other.synchronizeToUserDefaults()
        final class Large: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        let settings = Large(userDefaults: suite.userDefaults)
        settings.payload = Data(count: third + 1024)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let limit) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Large" && byteCount > 3 * third && limit == SettingsStore.maximumDomainByteCount
        }
        #expect(suite.storedObject(forKey: "AppSettings.Large") == nil)
        settings.payload = Data(count: 1024)
        try settings.synchronizeToUserDefaults()
    }
}
