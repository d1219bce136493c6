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
        /// written cannot fail another suite's save. In a process of its own (the test host), as
        /// tests running alongside in this one synchronize their suites, which writes every domain.
        @Test func aSaveALoadAndARevertWriteTheirOwnDomainOnly() throws {
            let suite = TemporarySuite()
            let elsewhere = TemporarySuite()
            let finished = try ChildProcess.run(
                "AppSettingsTestHost", ["own-domain", suite.name, "OwnDomain", elsewhere.name])
            #expect(finished.status == 0, "\(finished.errors)")
            #expect(finished.output == "other domain written: no counter=1\n")

            // The check sees a pending change once its own domain is synchronized.
            elsewhere.userDefaults.set("pending", forKey: "the app's own key")
            #expect(elsewhere.userDefaults.synchronize())
            let file = DomainLocation.of(elsewhere.userDefaults).domainFilePath
            let contents = try #require(FileManager.default.contents(atPath: file))
            #expect(String(decoding: contents, as: UTF8.self).contains("pending"))
        }
    }
#endif
