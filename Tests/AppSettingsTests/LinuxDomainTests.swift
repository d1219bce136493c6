import Foundation
import Testing

@testable import AppSettings

#if os(Linux) && !APPLE_STAND_INS
    /// What the Linux store asks of corelibs' preferences, beyond reading and writing its key.
    @Suite("The Linux store's domain", .capturedLibraryLog)
    struct LinuxDomainTests {
        /// corelibs' `UserDefaults.synchronize()` writes every domain of the process that has
        /// unsaved changes. A save, a load and a revert touch the set's own domain only: the app's
        /// pending changes elsewhere are written when the app asks, and a domain that cannot be
        /// written cannot fail another suite's save.
        @Test func aSaveALoadAndARevertWriteTheirOwnDomainOnly() throws {
            let elsewhere = TemporarySuite()
            let suite = TemporarySuite()
            elsewhere.userDefaults.set("pending", forKey: "the app's own key")
            let otherFile = DomainLocation.of(elsewhere.userDefaults).domainFilePath
            func otherFileHoldsThePendingChange() -> Bool {
                FileManager.default.contents(atPath: otherFile).map {
                    String(decoding: $0, as: UTF8.self).contains("pending")
                } ?? false
            }

            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.soundLevel = 0.2
            try settings.synchronizeToUserDefaults()
            settings.soundLevel = 0.3
            try settings.resetToUserDefaults()
            #expect(MySettings(userDefaults: suite.userDefaults).soundLevel == 0.2)
            #expect(!otherFileHoldsThePendingChange())

            // The check can see the change once its own domain is synchronized.
            #expect(elsewhere.userDefaults.synchronize())
            #expect(otherFileHoldsThePendingChange())
        }
    }
#endif
