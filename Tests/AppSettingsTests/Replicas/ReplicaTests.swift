@_spi(AppSettingsTool) import AppSettingsStoredSets
import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// Settings shown in the Settings app beside one that is not; the same class as the test host's
/// `ShownHostSettings`, so that this process and the host read each other's sets.
final class ShownReplicaSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Name", inSettingsApp: true) var name = "guest"
    @Setting(in: 0...10, description: "Retries", inSettingsApp: true) var retries = 3
    @Setting var count = 0
    override var userDefaultsKeyPostfix: String { "Replicas" }
}

/// A shown setting and a synced one, for a pull on the return to the foreground.
final class ShownSyncedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Name", inSettingsApp: true) var name = "guest"
    @Setting(syncs: true) var theme = "light"
    override var userDefaultsKeyPostfix: String { "ShownSynced" }
}

/// The same key as `ShownReplicaSettings` in a version that shows nothing: its saves leave the
/// Settings app's keys as they were.
final class UnshownReplicaSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var name = "guest"
    @Setting(in: 0...10) var retries = 3
    @Setting var count = 0
    override var userDefaultsKeyPostfix: String { "Replicas" }
}

extension ProcessWideNotices {
    /// Every place a setting's value lives, reconciled by one rule (issue 46): another writer's save
    /// is no Settings app edit; a pull keeps what the Settings app changed; the tool's removal takes
    /// the shown keys, its edit of a synced setting is sent; stale keys are written by the next save.
    @Suite(.serialized, .capturedLibraryLog) struct ReplicaTests {
        let suite = TemporarySuite()

        private func key(_ name: String) -> String { "Replicas.\(name)" }

        @Test func anotherWritersSaveIsNoSettingsAppEdit() throws {
            let a = ShownReplicaSettings(userDefaults: suite.userDefaults)
            a.name = "fromA"
            a.retries = 9
            let b = ShownReplicaSettings(userDefaults: suite.another())
            b.name = "fromB"
            b.count = 42
            try b.synchronizeToUserDefaults()
            try a.synchronizeToUserDefaults()
            #expect((a.name, a.retries, a.count) == ("fromA", 9, 42))
            let loaded = ShownReplicaSettings(userDefaults: suite.another())
            #expect((loaded.name, loaded.retries, loaded.count) == ("fromA", 9, 42))
            #expect(!loaded.hasUnsavedChanges)
            #expect(suite.storedObject(forKey: key("name")) as? String == "fromA")
            #expect(suite.storedObject(forKey: key("retries")) as? Double == 9)
        }

        @Test func aSettingsAppEditSurvivesAPullOnTheSameReturnToTheForeground() throws {
            // Notices only when asked: the phone learns of the cloud's change on its return.
            let cloud = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .manual))
            let phoneSuite = TemporarySuite.forSettings()
            let phoneStore = cloud.makeDevice()
            let phone = ShownSyncedSettings(userDefaults: phoneSuite.userDefaults)
            try phone.startSyncing(with: phoneStore)
            try phone.synchronizeToUserDefaults(forcing: true)
            let laptop = ShownSyncedSettings(userDefaults: suite.userDefaults)
            let laptopStore = cloud.makeDevice()
            try laptop.startSyncing(with: laptopStore)
            cloud.deliverChanges()
            // Another device changes a synced setting; the phone's user changes the name in Settings.
            laptop.theme = "dark"
            try laptop.synchronizeToUserDefaults()
            cloud.upload(from: laptopStore)
            cloud.download(to: phoneStore)
            let settingsApp = phoneSuite.another()
            settingsApp.set("Edited", forKey: "ShownSynced.name")
            settingsApp.synchronize()
            // Back in the foreground: the pull stores the cloud's theme, with the name as edited.
            cloud.enterForeground(phoneStore)
            NotificationCenter.default.post(name: SystemCloudEnvironment.willEnterForeground, object: nil)
            #expect(waitUntil { phone.name == "Edited" && phone.theme == "dark" })
            #expect(phoneSuite.storedObject(forKey: "ShownSynced.name") as? String == "Edited")
            let relaunched = ShownSyncedSettings(userDefaults: phoneSuite.another())
            #expect((relaunched.name, relaunched.theme) == ("Edited", "dark"))
        }

        @Test func theToolsRemovalTakesTheShownKeys() throws {
            let settings = ShownReplicaSettings(userDefaults: suite.userDefaults)
            settings.name = "Zed"
            settings.retries = 7
            try settings.synchronizeToUserDefaults()
            _ = try StoredSettingsEditor.removeSet(userDefaults: suite.another(), key: settings.userDefaultsKey)
            #expect(suite.storedObject(forKey: key("name")) == nil)
            #expect(suite.storedObject(forKey: key("retries")) == nil)
            let loaded = ShownReplicaSettings(userDefaults: suite.another())
            #expect((loaded.name, loaded.retries, loaded.count) == ("guest", 3, 0))
        }

        @Test func theToolsEditsWriteTheShownKeysAndTakeTheSettingsAppsEdits() throws {
            let settings = ShownReplicaSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            suite.another().set("Bo", forKey: key("name"))
            try StoredSettingsEditor.setValue(
                "5", forSetting: "retries", userDefaults: suite.another(), key: settings.userDefaultsKey)
            #expect(suite.storedObject(forKey: key("retries")) as? Double == 5)
            #expect(suite.storedObject(forKey: key("name")) as? String == "Bo")
            let loaded = ShownReplicaSettings(userDefaults: suite.another())
            #expect((loaded.name, loaded.retries) == ("Bo", 5))
            #expect(!loaded.hasUnsavedChanges)
        }

        @Test func theToolsEditOfASyncedSettingIsSent() throws {
            let cloud = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .manual))
            let phoneSuite = TemporarySuite.forSettings()
            let phoneStore = cloud.makeDevice()
            cloud.download(to: phoneStore)
            let phone = ShownSyncedSettings(userDefaults: phoneSuite.userDefaults)
            try phone.startSyncing(with: phoneStore)
            phone.theme = "dark"
            try phone.synchronizeToUserDefaults()
            // The tool changes the synced setting: a change made on this device, sent as a save's is.
            try StoredSettingsEditor.setValue(
                "sepia", forSetting: "theme", userDefaults: phoneSuite.another(), key: phone.userDefaultsKey)
            try phone.refreshFromCloud()
            let laptop = ShownSyncedSettings(userDefaults: suite.userDefaults)
            try laptop.startSyncing(with: cloud.makeDevice())
            cloud.deliverChanges()
            #expect(laptop.theme == "sepia")
            #expect((phone.theme, ShownSyncedSettings(userDefaults: phoneSuite.another()).theme) == ("sepia", "sepia"))
        }

        @Test func missingAndStaleKeysAreWrittenByTheNextSave() throws {
            let settings = ShownReplicaSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            // A version that does not show the settings changes them: their keys are left stale.
            let older = UnshownReplicaSettings(userDefaults: suite.another())
            older.name = "Old"
            try older.synchronizeToUserDefaults()
            suite.another().removeObject(forKey: key("retries"))
            let loaded = ShownReplicaSettings(userDefaults: suite.another())
            #expect(loaded.name == "Old")  // the stale key is no edit
            #expect(!loaded.hasUnsavedChanges)
            try loaded.synchronizeToUserDefaults()
            #expect(suite.storedObject(forKey: key("name")) as? String == "Old")
            #expect(suite.storedObject(forKey: key("retries")) as? Double == 3)
            // Current now: the next save of a clean object writes nothing.
            #expect(try loaded.ledger.reconcile(.unsavedChanges, replicas: loaded.ledger.replicas()) == nil)
        }
    }
}
