@_spi(AppSettingsTool) import AppSettingsStoredSets
import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// The account rules of issue 46: a value belongs to the account the store is signed into when it
/// is saved, after `stopSyncing()` too.
extension SyncTests {
    @Test("stopped, then another account: an unsaved change is saved to the new account, nothing old goes")
    func unsavedChangeFollowsTheAccountWhileStopped() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.fontSize = 20
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        phone.settings.theme = "dark"  // not saved yet
        phone.settings.stopSyncing()
        let other = cloud.makeAccount(holding: [:])
        cloud.signIn(phone.store, to: other)
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: other).isEmpty)  // nothing sent while stopped

        try phone.settings.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(cloud.settingValues(for: phone.store).keys.sorted() == [Self.key("theme")])
        #expect(cloud.settingValues(for: phone.store)[Self.key("theme")] as? String == "dark")
        #expect(phone.settings.theme == "dark" && phone.settings.fontSize == 12)
        #expect(phone.relaunched().fontSize == 12)
        #expect(laptop.settings.theme == "light" && laptop.settings.fontSize == 20)
    }

    @Test("another account's setting the tool changes is this account's: sent, never reverted by the pull")
    func theToolsEditOfAnotherAccountsSettingIsSent() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.fontSize = 20
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        phone.settings.stopSyncing()
        cloud.signIn(phone.store, to: cloud.makeAccount(holding: [:]))
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()  // fontSize holds the first account's value
        try StoredSettingsEditor.setValue(
            "16", forSetting: "fontSize", userDefaults: phone.suite.another(), key: phone.settings.userDefaultsKey)
        try phone.settings.resetToUserDefaults()
        try phone.settings.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(cloud.settingValues(for: phone.store)[Self.key("fontSize")] as? Int == 16)
        #expect(phone.settings.fontSize == 16 && phone.relaunched().fontSize == 16)
        #expect(laptop.settings.fontSize == 20)
    }

    @Test("stopped: a change saved on another account never reaches the account of the stop")
    func changeSavedOnAnotherAccountWhileStopped() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.stopSyncing()
        let other = cloud.makeAccount(holding: [:])
        cloud.signIn(phone.store, to: other)
        phone.settings.theme = "the other account's"
        try phone.settings.synchronizeToUserDefaults()
        cloud.signIn(phone.store, to: cloud.firstAccount)
        try phone.settings.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: cloud.firstAccount).isEmpty)
        #expect(phone.settings.theme == "light" && laptop.settings.theme == "light")
    }

    @Test("stopped, another account, then signed out: a change saved then belongs to the account last signed into")
    func changeSavedSignedOutWhileStopped() throws {
        let (phone, _) = try twoDevices()
        phone.settings.stopSyncing()
        let other = cloud.makeAccount(holding: [:])
        cloud.signIn(phone.store, to: other)
        cloud.signOut(phone.store)
        phone.settings.volume = 0.25
        try phone.settings.synchronizeToUserDefaults()
        cloud.signIn(phone.store, to: other)
        try phone.settings.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(cloud.settingValues(for: phone.store)[Self.key("volume")] as? Double == 0.25)
        #expect(cloud.serverValues(of: cloud.firstAccount).isEmpty)
    }

    @Test("stopped: a change saved after a removal is versioned past what the store holds, and wins")
    func changeAfterARemovalWhileStopped() throws {
        let (phone, laptop) = try twoDevices()
        for theme in (1...12).map({ "theme \($0)" }) {
            phone.settings.theme = theme
            try phone.settings.synchronizeToUserDefaults()
            cloud.deliverChanges()
            phone.settings.stopSyncing()
            try phone.settings.removeFromUserDefaults()
            phone.settings.theme = theme + " again"
            try phone.settings.synchronizeToUserDefaults()
            try phone.settings.startSyncing(with: phone.store)
            cloud.deliverChanges()
            #expect(laptop.settings.theme == theme + " again" && phone.settings.theme == theme + " again")
        }
    }
}
