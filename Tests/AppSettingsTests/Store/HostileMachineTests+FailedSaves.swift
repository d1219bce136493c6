import Foundation
import Testing

@testable import AppSettings

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
    extension HostileMachineTests {
        // MARK: Failed saves

        @Test("a recovery copy that cannot be written: the domain is put back, nothing is stored")
        func aCopyFailureLeavesTheDomainAsItWas() throws {
            let settings = try saved(.system)
            let domainBefore = try Data(contentsOf: try #require(settings.settingsStore.domainFileURL))
            let copy = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            try FileManager.default.removeItem(at: copy)
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false)
            settings.theme = .dark
            expectStoreFailed({ try settings.synchronizeToUserDefaults() }, mentioning: "nothing was stored")
            #expect(try Data(contentsOf: try #require(settings.settingsStore.domainFileURL)) == domainBefore)
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
            try FileManager.default.removeItem(at: copy)
            // The in-memory domain was put back too: a later flush does not write the refused set.
            suite.userDefaults.synchronize()
            #expect(MySettings(userDefaults: suite.another()).theme == .system)
        }

        /// In a second process: corelibs synchronizes every dirty domain of a process at each
        /// `synchronize()`, so an unwritable domain file would fail this process's other tests' saves.
        @Test("a domain file that cannot be written: the recovery copy is put back, nothing is stored")
        func aDomainFailureLeavesTheCopyAsItWas() throws {
            try TestHost.run(["write", suite.name, "Host", "1"]).requireSuccess()
            let location = DomainLocation.of(suiteNamed: suite.name)
            let copy = location.recoveryCopyPath(forKey: "AppSettings.Host")
            let archiveBefore = try #require(try RecoveryCopyFormat.archive(inFileAtPath: copy))
            try makeUnwritable(location.domainFilePath)
            defer { makeWritable(location.domainFilePath) }
            let refused = try TestHost.run(["write", suite.name, "Host", "2"])
            #expect(refused.status != 0)
            #expect(refused.errors.contains("nothing was stored"), "\(refused.errors)")
            #expect(try RecoveryCopyFormat.archive(inFileAtPath: copy) == archiveBefore)
            let read = try TestHost.run(["fields", suite.name, "Host"])
            #expect(read.output.hasPrefix("counter=1 "), "\(read.output) \(read.errors)")
        }

        /// Makes a file unwritable even for root (as CI runs): `chattr +i`; `chmod` otherwise.
        private func makeUnwritable(_ path: String) throws {
            if geteuid() == 0 {
                let chattr = try Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: ["+i", path])
                chattr.waitUntilExit()
                try #require(chattr.terminationStatus == 0, "chattr +i failed")
            } else {
                try #require(chmod(path, 0o444) == 0)
            }
        }

        private func makeWritable(_ path: String) {
            if geteuid() == 0 {
                let chattr = try? Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: ["-i", path])
                chattr?.waitUntilExit()
            } else {
                chmod(path, 0o644)
            }
        }
    }
#endif
