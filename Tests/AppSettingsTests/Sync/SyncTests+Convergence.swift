import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// Convergence with no call from the app (issue 37) and iCloud used as Apple documents it (issue
/// 36): each test fails on the simulator without the fix it names.
extension SyncTests {
    @Test("a device that joins an account with values in the cloud shows them with no app call (silent first download)")
    func newDeviceShowsTheCloudsValues() throws {
        let cloud = CloudKeyValueStoreSimulator(options: .strict)
        let phone = try Device(cloud)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let tablet = try Device(cloud)
        cloud.deliverChanges()  // the tablet's first download posts no notice; its own checks see it
        #expect(tablet.settings.theme == "dark")
        #expect(tablet.relaunched().theme == "dark")
    }

    @Test("a change saved while signed out is uploaded once the account is back, with no app call")
    func changeSavedSignedOutIsUploaded() throws {
        let cloud = CloudKeyValueStoreSimulator(options: .strict)
        let (phone, laptop) = (try Device(cloud), try Device(cloud))
        cloud.deliverChanges()
        cloud.signOut(phone.store)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "light")
        cloud.signIn(phone.store, to: cloud.firstAccount)
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "dark")
    }

    @Test("a value iCloud refused never outranks one another device syncs later")
    func refusedValueDoesNotOutrank() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.photo = Data(count: 600_000)
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        phone.settings.photo = Data(count: 700_000)
        phone.settings.thumbnail = Data(count: 600_000)
        try phone.settings.synchronizeToUserDefaults()  // over the 1 MB of all values: refused
        cloud.deliverChanges()
        #expect(phone.settings.thumbnail.count == 600_000, "kept here, reported")
        #expect(laptop.settings.thumbnail.isEmpty)
        laptop.settings.thumbnail = Data([1, 2, 3])
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.thumbnail == Data([1, 2, 3]))
        #expect(phone.relaunched().thumbnail == Data([1, 2, 3]))
    }

    @Test("a value refused on a device not syncing when it was changed never outranks what another synced meanwhile")
    func refusedValueChangedWhileNotSyncingDoesNotOutrank() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.photo = Data(count: 600_000)
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let tablet = try Device(cloud, syncing: false)
        // Changed twice while not syncing: its counter passes the laptop's one change, which the
        // tablet's store holds before it starts syncing.
        tablet.settings.thumbnail = Data(count: 500_000)
        try tablet.settings.synchronizeToUserDefaults()
        tablet.settings.thumbnail = Data(count: 600_000)
        try tablet.settings.synchronizeToUserDefaults()
        laptop.settings.thumbnail = Data([1, 2, 3])
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        try tablet.settings.startSyncing(with: tablet.store)  // over the 1 MB of all values: refused
        cloud.deliverChanges()
        try tablet.settings.refreshFromCloud()
        #expect(tablet.settings.thumbnail == Data([1, 2, 3]))
        #expect(phone.settings.thumbnail == Data([1, 2, 3]))
        #expect(tablet.relaunched().thumbnail == Data([1, 2, 3]))
    }

    @Test("a write discarded by the initial sync is not sent again inside its notice, but later, and arrives")
    func noWriteInsideTheInitialSyncNotice() throws {
        let phone = try Device(cloud)
        cloud.deliverChanges()
        let tablet = try Device(cloud)
        tablet.settings.theme = "blue"  // before the tablet's first download: discarded
        try tablet.settings.synchronizeToUserDefaults()
        cloud.upload(from: tablet.store)
        cloud.download(to: tablet.store)  // the initial-sync notice, delivered at once
        #expect(cloud.misuses.isEmpty, "\(cloud.misuses)")
        #expect(cloud.settingValues(for: phone.store)[Self.key("theme")] == nil)
        cloud.deliverChanges()
        #expect(cloud.misuses.isEmpty, "\(cloud.misuses)")
        #expect(phone.settings.theme == "blue")
    }

    @Test("no key over 64 bytes is set or removed, when its setting stops syncing too")
    func noLongKeyIsRemoved() throws {
        let suite = TemporarySuite.forSettings()
        let device = cloud.makeDevice()
        let before = LongKeySettings(userDefaults: suite.userDefaults)
        try before.startSyncing(with: device)
        before.aSettingWithAVeryLongNameThatMakesTheCloudKeyTooLong = 2
        try before.synchronizeToUserDefaults()
        before.stopSyncing()
        cloud.deliverChanges()
        let after = LongKeySettingsAfter(userDefaults: suite.another())
        try after.startSyncing(with: device)
        cloud.deliverChanges()
        #expect(cloud.runtimeErrors.isEmpty, "\(cloud.runtimeErrors)")
    }

    @Test("the app's return to the foreground asks the store for new values")
    func foregroundRefreshes() throws {
        let cloud = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .insideSynchronize))
        let (phone, laptop) = (try Device(cloud), try Device(cloud))
        cloud.deliverChanges()
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.upload(from: phone.store)
        cloud.download(to: laptop.store)  // its notice waits for the laptop's synchronize()
        #expect(laptop.settings.theme == "light")
        cloud.enterForeground(laptop.store)
        #expect(laptop.settings.theme == "dark")
    }
}

/// `LongKeySettings`' set in a later version, whose long-named setting no longer syncs.
final class LongKeySettingsAfter: AppSettingsObject, @unchecked Sendable {
    override var userDefaultsKeyPostfix: String { "LongKeySettings" }
    override class var schemaVersion: Int { 1 }
    @Setting var aSettingWithAVeryLongNameThatMakesTheCloudKeyTooLong = 1
}
