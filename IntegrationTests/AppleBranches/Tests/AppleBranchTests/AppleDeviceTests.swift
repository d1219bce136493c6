import AppleStandIns
import Foundation
import Testing

@testable import AppSettings

// Issue 47, on the model of Apple's behaviour: the iCloud account, the macOS refresh, the Settings
// app's window on a Mac and the stores it cannot reach. In `AppleBranchTests` (serialized): the
// model's process state is global.

extension AppleBranchTests {
    // MARK: The account, by the token's equality

    /// A new launch in a container of its own: nothing remembered of the tokens seen.
    private func withFreshLibraryFolder(_ body: () throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "AppleDeviceTests-" + UUID().uuidString, isDirectory: true)
        let folder = ProtectedData.directory
        ProtectedData.directory = directory
        UbiquityIdentities.seen.withLock { $0 = nil }
        defer {
            ProtectedData.directory = folder
            UbiquityIdentities.seen.withLock { $0 = nil }
            AppleProcess.ubiquityIdentity = nil
            AppleProcess.ubiquityTokenArchiveFormat = 1
            try? FileManager.default.removeItem(at: directory)
        }
        try body()
    }

    @Test func theAccountIsTheSameWhenTheSystemArchivesTheSameTokenOtherwise() throws {
        try withFreshLibraryFolder {
            AppleProcess.ubiquityIdentity = "someone"
            let account = NSUbiquitousKeyValueStore.default.account
            guard case .signedIn = account else {
                Issue.record("no account: \(account)")
                return
            }
            // A system update archives the token otherwise; the app is launched again.
            AppleProcess.ubiquityTokenArchiveFormat = 2
            UbiquityIdentities.seen.withLock { $0 = nil }
            #expect(NSUbiquitousKeyValueStore.default.account == account, "read as another account")
            AppleProcess.ubiquityIdentity = "someone else"
            #expect(NSUbiquitousKeyValueStore.default.account != account)
            AppleProcess.ubiquityIdentity = "someone"
            #expect(NSUbiquitousKeyValueStore.default.account == account)
        }
    }

    @Test func aFileOfTokensThatCannotBeReadIsKeptAsideNotWrittenOver() throws {
        try withFreshLibraryFolder {
            let directory = try #require(ProtectedData.directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let damaged = Data("not a property list".utf8)
            try damaged.write(to: directory.appendingPathComponent("ubiquity-identities.plist"))
            AppleProcess.ubiquityIdentity = "someone"
            let capture = LogCapture()
            let account = LogCapture.$current.withValue(capture) { NSUbiquitousKeyValueStore.default.account }
            guard case .signedIn = account else {
                Issue.record("no account: \(account)")
                return
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            let aside = names.filter { $0.hasPrefix("ubiquity-identities.unreadable-") }
            #expect(aside.count == 1, "\(names)")
            #expect(try aside.first.map { try Data(contentsOf: directory.appendingPathComponent($0)) } == damaged)
            #expect(capture.messages.contains { $0.contains("could not be read whole") }, "\(capture.messages)")
        }
    }
}

/// A setting the Settings app shows, for the settings window of a Mac app.
final class WindowSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(in: 0...1, description: "Sound level", inSettingsApp: true) var soundLevel = 0.5
}

extension AppleBranchTests {
    // MARK: The Settings app's window on a Mac

    /// Mac Catalyst shows the Settings bundle in a window of the app: its edits are the process's
    /// own writes, and no foreground notice follows them.
    @Test func anEditInTheAppsSettingsWindowReachesALiveObjectWithinOneNotice() throws {
        let suite = Suite()
        let settings = WindowSettings(userDefaults: suite.model())
        nonisolated(unsafe) let window = suite.model()
        let finished = runThreads([{ window.set(0.25, forKey: "WindowSettings.soundLevel") }], waitingAtMost: 10)
        #expect(finished)
        for _ in 0..<500 where settings.soundLevel != 0.25 { usleep(10_000) }
        #expect(settings.soundLevel == 0.25, "the window's edit was not taken")
        #expect(settings.hasUnsavedChanges)
    }

    // MARK: The macOS refresh

    /// A Mac app becomes active at every click into it: the store is not read again then (Apple:
    /// "The only recommended time to call this method is upon app launch, or upon returning to the
    /// foreground").
    @Test func becomingActiveOnAMacIsNoCueToReadTheCloud() {
        let events = Protected<[CloudEnvironmentEvent]>([])
        let token = SystemCloudEnvironment.shared.addEventObserver { event in events.withLock { $0.append(event) } }
        defer { SystemCloudEnvironment.shared.removeEventObserver(token) }
        NotificationCenter.default.post(
            name: Notification.Name("NSApplicationDidBecomeActiveNotification"), object: nil)
        #expect(events.withLock { $0 }.isEmpty)
        NotificationCenter.default.post(name: SystemCloudEnvironment.willEnterForeground, object: nil)
        #expect(events.withLock { $0 } == [.enteredForeground])
    }
}
