import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

extension SyncTests {
    @Test("after an account change the new account's values are taken and nothing old is uploaded")
    func accountChangeUploadsNothingOld() throws {
        let (phone, laptop) = try twoDevices()
        laptop.settings.theme = "dark"
        laptop.settings.fontSize = 16
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.theme == "dark")

        cloud.changeAccount(of: phone.store)
        phone.settings.volume = 0.75
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let server = cloud.settingValues(for: phone.store)
        #expect(server.keys.sorted() == [Self.key("volume")])
        #expect(server[Self.key("volume")] as? Double == 0.75)
        #expect(laptop.settings.volume == 0.5)
        #expect(cloud.settingValues(for: laptop.store)[Self.key("theme")] as? String == "dark")
    }

    @Test("stopSyncing() stops sending and taking; startSyncing sends what was stored meanwhile")
    func stopSyncingStops() throws {
        let (phone, laptop) = try twoDevices()
        laptop.settings.stopSyncing()
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        laptop.settings.fontSize = 30
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "light")
        #expect(cloud.settingValues(for: phone.store)[Self.key("fontSize")] == nil)

        try laptop.settings.startSyncing(with: laptop.store)
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "dark")
        #expect(phone.settings.fontSize == 30)
    }

    @Test("an unsaved change is kept when the cloud's value arrives, and sent when it is saved")
    func unsavedChangeIsKept() throws {
        let (phone, laptop) = try twoDevices()
        laptop.settings.fontSize = 22  // not saved yet
        phone.settings.fontSize = 14
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.fontSize == 22 && laptop.settings.theme == "dark")
        #expect(laptop.relaunched().fontSize == 14)

        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.fontSize == 22)
    }

    @Test("a relaunch that synced before sends at once what was stored while it was not syncing")
    func relaunchSendsWhatWasStored() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.stopSyncing()
        let relaunched = phone.relaunched()
        relaunched.theme = "offline"
        try relaunched.synchronizeToUserDefaults()
        try relaunched.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "offline")
    }

    @Test("a synced setting another writer of the set stored (an extension) is sent by the syncing object")
    func anotherWritersChangeIsSent() throws {
        let (phone, laptop) = try twoDevices()
        let phoneExtension = CloudSettings(userDefaults: phone.suite.another())
        phoneExtension.theme = "from the widget"
        try phoneExtension.synchronizeToUserDefaults()
        // The next notice the app's object gets (the laptop's change) sends it along.
        laptop.settings.fontSize = 13
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "from the widget")
        #expect(phone.settings.fontSize == 13)
        // So does its next synchronization.
        phoneExtension.volume = 0.125
        try phoneExtension.synchronizeToUserDefaults()
        phone.settings.windowFrame = "1 2 3 4"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.volume == 0.125)
    }
}
