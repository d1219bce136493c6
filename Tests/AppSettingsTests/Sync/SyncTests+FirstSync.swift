import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

extension SyncTests {
    @Test("a new device with developer defaults takes the cloud's values and overwrites none")
    func newDeviceOverwritesNothing() throws {
        let phone = try Device(cloud)
        cloud.deliverChanges()
        phone.settings.theme = "dark"
        phone.settings.volume = 0.25
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        let tablet = try Device(cloud)
        tablet.settings.windowFrame = "0 0 1 1"
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        // The first download is silent: the app's return to the foreground shows it.
        try tablet.settings.refreshFromCloud()
        cloud.deliverChanges()
        #expect(tablet.settings.theme == "dark" && tablet.settings.volume == 0.25)
        #expect(phone.settings.theme == "dark" && phone.settings.volume == 0.25)
        #expect(cloud.settingValues(for: phone.store).keys.sorted() == [Self.key("theme"), Self.key("volume")])
        #expect(tablet.relaunched().theme == "dark")
    }

    @Test("writes before the first download are discarded by iCloud, then sent again (defect 1)")
    func initialSync() throws {
        let phone = try Device(cloud)
        cloud.deliverChanges()
        phone.settings.fontSize = 14
        try phone.settings.synchronizeToUserDefaults()
        let tablet = try Device(cloud)
        tablet.settings.theme = "blue"  // changed before the first download: discarded, sent again
        tablet.settings.fontSize = 20  // changed on both sides, unseen: one of the two everywhere
        try tablet.settings.synchronizeToUserDefaults()
        #expect(cloud.settingValues(for: tablet.store).isEmpty)

        cloud.deliverChanges()
        #expect(tablet.settings.theme == "blue" && phone.settings.theme == "blue")
        #expect(tablet.settings.fontSize == phone.settings.fontSize)
        #expect(cloud.settingValues(for: phone.store)[Self.key("fontSize")] as? Int == phone.settings.fontSize)
        #expect(tablet.relaunched().fontSize == phone.settings.fontSize)
    }

    @Test("a device whose store synced before syncing started sends its changes without waiting")
    func storeSyncedBeforeStarting() throws {
        let phone = try Device(cloud)
        let tablet = try Device(cloud, syncing: false)
        cloud.deliverChanges()  // both stores' initial sync; the tablet's object does not listen yet
        try tablet.settings.startSyncing(with: tablet.store)
        tablet.settings.theme = "blue"
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.theme == "blue")
        // The first notice it gets establishes what it agrees on with the cloud.
        phone.settings.fontSize = 15
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(tablet.settings.fontSize == 15 && tablet.settings.theme == "blue")
        #expect(tablet.relaunched().theme == "blue")
    }
}
