import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// One scenario per defect of issue 28, each on the strict simulator.
@Suite("Syncing: the defects of issue 28", .capturedLibraryLog)
struct SyncDefectTests {
    let cloud = CloudKeyValueStoreSimulator()

    typealias Device = SyncTests.Device

    static func key(_ name: String) -> String { SyncTests.key(name) }

    /// Everything delivered, then every app back in the foreground (a silent first download is
    /// seen there), then delivered again.
    func settle(_ devices: [Device]) throws {
        cloud.deliverChanges()
        for device in devices { try device.settings.refreshFromCloud() }
        cloud.deliverChanges()
    }

    @Test("1: a save before the first notice sends only what it changed; newer values of others stay")
    func noLostUpdateBeforeTheFirstNotice() throws {
        let phone = try Device(cloud)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let tablet = try Device(cloud)  // no download yet: nothing agreed
        tablet.settings.fontSize = 16
        try tablet.settings.synchronizeToUserDefaults()
        tablet.settings.volume = 0.25
        try tablet.settings.synchronizeToUserDefaults()
        try settle([phone, tablet])
        for device in [phone, tablet] {
            #expect(device.settings.theme == "dark" && device.settings.fontSize == 16 && device.settings.volume == 0.25)
        }
    }

    @Test("2: startSyncing does not take the device's own unsent write for downloaded data")
    func ownUnsentWriteIsNotDownloadedData() throws {
        let phone = try Device(cloud)
        let tablet = try Device(cloud)
        tablet.settings.theme = "blue"  // before the first download
        try tablet.settings.synchronizeToUserDefaults()
        let relaunched = CloudSettings(userDefaults: tablet.suite.another())
        try relaunched.startSyncing(with: tablet.store)  // the local copy holds its own write
        cloud.deliverChanges()
        #expect(phone.settings.theme == "blue")
        relaunched.theme = "green"
        try relaunched.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.theme == "green" && relaunched.theme == "green")
    }

    @Test("3: an account changed while not observing: nothing of the old account goes to the new one")
    func accountChangedWhileNotObserving() throws {
        let phone = try Device(cloud)
        try settle([phone])
        phone.settings.stopSyncing()
        phone.settings.theme = "old account"
        try phone.settings.synchronizeToUserDefaults()
        let other = cloud.makeAccount(holding: [:])
        cloud.signIn(phone.store, to: other)
        cloud.deliverChanges()
        try phone.settings.startSyncing(with: phone.store)
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: other).isEmpty)
        #expect(phone.settings.theme == "light")  // the new account's: the developer default
        #expect(cloud.serverValues(of: cloud.firstAccount).isEmpty)
    }

    @Test("4: nil inside a nested settings object, a dictionary and [String?] travels")
    func nilInsideValuesTravels() throws {
        let phoneSuite = TemporarySuite.forSettings()
        let phone = NilSettings(userDefaults: phoneSuite.userDefaults)
        let laptopSuite = TemporarySuite.forSettings()
        let laptop = NilSettings(userDefaults: laptopSuite.userDefaults)
        try phone.startSyncing(with: cloud.makeDevice())
        try laptop.startSyncing(with: cloud.makeDevice())
        phone.names = ["a", nil, "c"]
        phone.inner.label = nil
        phone.labels = ["x": nil, "y": "why"]
        try phone.synchronizeToUserDefaults()
        cloud.deliverChanges()
        try laptop.refreshFromCloud()
        #expect(laptop.names == ["a", nil, "c"])
        #expect(laptop.inner.label == nil)
        #expect(laptop.labels == ["x": nil, "y": "why"])
        #expect(NilSettings(userDefaults: laptopSuite.another()).inner.label == nil)
    }

    @Test(
        "5: after an account change: missing settings show defaults, an early edit is kept, a silent download is seen")
    func afterAnAccountChange() throws {
        let phone = try Device(cloud)
        let laptop = try Device(cloud)
        phone.settings.theme = "dark"
        phone.settings.fontSize = 20
        try phone.settings.synchronizeToUserDefaults()
        try settle([phone, laptop])
        #expect(laptop.settings.theme == "dark")

        let other = cloud.makeAccount(holding: [:])
        let otherDevice = try Device(cloud)
        cloud.signIn(otherDevice.store, to: other)
        otherDevice.settings.fontSize = 30
        try otherDevice.settings.synchronizeToUserDefaults()
        try settle([otherDevice])

        cloud.signIn(laptop.store, to: other)
        laptop.settings.volume = 0.75  // an edit before the new account's download
        try laptop.settings.synchronizeToUserDefaults()
        try settle([laptop, otherDevice])
        #expect(laptop.settings.theme == "light")  // the new account lacks it: the developer default
        #expect(laptop.settings.fontSize == 30)
        #expect(laptop.settings.volume == 0.75 && otherDevice.settings.volume == 0.75)
        #expect(cloud.settingValues(for: laptop.store)[Self.key("theme")] == nil)

        // A new device whose first download is silent shows the account's values at launch.
        let tablet = try Device(cloud)
        cloud.deliverChanges()
        let launched = tablet.relaunched()
        try launched.startSyncing(with: tablet.store)
        #expect(launched.theme == "dark" && launched.fontSize == 20)
    }

    @Test("6: a change saved before the first startSyncing is sent by it")
    func changeBeforeTheFirstStart() throws {
        let phone = try Device(cloud)
        let tablet = try Device(cloud, syncing: false)
        tablet.settings.theme = "saved before syncing"
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        try tablet.settings.startSyncing(with: tablet.store)
        try settle([phone, tablet])
        #expect(phone.settings.theme == "saved before syncing")
    }

    @Test("7: a setting that becomes synced converges, a legacy value syncs, a removed setting's key is removed")
    func schemaChanges() throws {
        let phoneSuite = TemporarySuite.forSettings()
        let laptopSuite = TemporarySuite.forSettings()
        phoneSuite.userDefaults.set("from the legacy key", forKey: "legacyMotto")
        let before = SchemaBefore(userDefaults: phoneSuite.userDefaults)
        before.mood = "happy"  // not synced in this version
        try before.synchronizeToUserDefaults()
        let phoneStore = cloud.makeDevice()
        let laptopStore = cloud.makeDevice()
        try before.startSyncing(with: phoneStore)
        cloud.deliverChanges()
        #expect(cloud.settingValues(for: phoneStore)["AppSettings.Schema.motto"] as? String == "from the legacy key")

        // The next version syncs `mood` and no longer declares `motto`.
        before.stopSyncing()
        let after = SchemaAfter(userDefaults: phoneSuite.another())
        let laptop = SchemaAfter(userDefaults: laptopSuite.userDefaults)
        try after.startSyncing(with: phoneStore)
        try laptop.startSyncing(with: laptopStore)
        cloud.deliverChanges()
        try laptop.refreshFromCloud()
        #expect(laptop.mood == "happy")
        #expect(cloud.serverValues(for: phoneStore)["AppSettings.Schema.motto"] == nil)
    }

    @Test("8: removeFromUserDefaults() while syncing takes the cloud's values at once; a NaN is not announced again")
    func removalAndNaN() async throws {
        let phone = try Device(cloud)
        let laptop = try Device(cloud)
        phone.settings.theme = "dark"
        phone.settings.volume = .nan
        try phone.settings.synchronizeToUserDefaults()
        try settle([phone, laptop])
        try laptop.settings.removeFromUserDefaults()
        #expect(laptop.settings.theme == "dark")
        #expect(laptop.relaunched().theme == "dark")

        var events = phone.settings.changes.makeAsyncIterator()
        laptop.settings.fontSize = 18
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let first = await events.next()
        #expect(first == .settingsChanged(["fontSize"]), "\(String(describing: first))")
        laptop.settings.fontSize = 19
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let second = await events.next()
        #expect(second == .settingsChanged(["fontSize"]), "\(String(describing: second))")  // not volume again
    }

    @Test(
        "9: limits checked before sending; a keyless quota notice refuses only what was not taken; sparing synchronize()"
    )
    func appleDocumentationReading() async throws {
        let quiet = CloudKeyValueStoreSimulator(options: .init(omitsChangedKeys: true))
        let phoneSuite = TemporarySuite.forSettings()
        let phone = CloudSettings(userDefaults: phoneSuite.userDefaults)
        let counting = CountingStore(quiet.makeDevice())
        try phone.startSyncing(with: counting)
        quiet.deliverChanges()
        var events = phone.changes.makeAsyncIterator()
        phone.photo = Data(count: 600_000)
        phone.thumbnail = Data(count: 600_000)  // together over 1 MB: refused before sending
        try phone.synchronizeToUserDefaults()
        #expect(await events.next() == .settingsChanged(["photo"]))
        #expect(await events.next() == .settingsChanged(["thumbnail"]))
        guard case .syncFailed(.cloudValueRefused(_, "thumbnail", _)) = await events.next() else {
            Issue.record("the total is not checked before sending")
            return
        }
        quiet.deliverChanges()
        #expect(quiet.serverValues(for: counting.device).count == 1)
        // Many saves, one synchronize() (at the start): Apple asks to call it sparingly.
        let synchronizations = counting.synchronizations.withLock { $0 }
        for size in 1...5 {
            phone.fontSize = size
            try phone.synchronizeToUserDefaults()
        }
        #expect(counting.synchronizations.withLock { $0 } == synchronizations)
        quiet.deliverChanges()
        #expect(phone.photo.count == 600_000 && phone.fontSize == 5)
        #expect(runtimeIsClean(quiet))
    }

    func runtimeIsClean(_ simulator: CloudKeyValueStoreSimulator) -> Bool { simulator.runtimeErrors.isEmpty }

    @Test("a too-long cloud key is refused before it is written: Apple's store would raise")
    func tooLongKey() async throws {
        let suite = TemporarySuite.forSettings()
        let phone = LongKeySettings(userDefaults: suite.userDefaults)
        let device = cloud.makeDevice()
        try phone.startSyncing(with: device)
        var events = phone.changes.makeAsyncIterator()
        phone.aSettingWithAVeryLongNameThatMakesTheCloudKeyTooLong = 2
        try phone.synchronizeToUserDefaults()
        #expect(await events.next() == .settingsChanged(["aSettingWithAVeryLongNameThatMakesTheCloudKeyTooLong"]))
        guard case .syncFailed(.cloudValueRefused) = await events.next() else {
            Issue.record("the long key is not reported")
            return
        }
        cloud.deliverChanges()
        #expect(cloud.runtimeErrors.isEmpty)
    }

    @Test("resetToDeveloperDefaults() travels: it is a change of every setting it changes")
    func resetTravels() throws {
        let phone = try Device(cloud)
        let laptop = try Device(cloud)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        try settle([phone, laptop])
        laptop.settings.resetToDeveloperDefaults()
        try laptop.settings.synchronizeToUserDefaults()
        try settle([phone, laptop])
        #expect(phone.settings.theme == "light")
    }

    @Test("notices on another thread and from inside synchronize() are taken alike")
    func noticeThreads() throws {
        for delivery in [CloudKeyValueStoreSimulator.NoticeDelivery.onAnotherThread, .insideSynchronize] {
            let simulator = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: delivery))
            let phone = try Device(simulator)
            let laptop = try Device(simulator)
            phone.settings.theme = "dark"
            try phone.settings.synchronizeToUserDefaults()
            simulator.deliverChanges()
            simulator.waitForNotices()
            try laptop.settings.refreshFromCloud()
            simulator.waitForNotices()
            #expect(laptop.settings.theme == "dark")
        }
    }
}

final class NilSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(syncs: true) var names: [String?] = []
    @Setting(syncs: true) var labels: [String: String?] = [:]
    @Setting(syncs: true) var inner = NilInner()
}

final class NilInner: AppSettingsObject, @unchecked Sendable {
    @Setting var label: String? = "default"
}

final class SchemaBefore: AppSettingsObject, @unchecked Sendable {
    override var userDefaultsKeyPostfix: String { "Schema" }
    @Setting var mood = "calm"
    @Setting(legacyKey: "legacyMotto", syncs: true) var motto = "none"
}

final class SchemaAfter: AppSettingsObject, @unchecked Sendable {
    override var userDefaultsKeyPostfix: String { "Schema" }
    @Setting(syncs: true) var mood = "calm"
}

final class LongKeySettings: AppSettingsObject, @unchecked Sendable {
    @Setting(syncs: true) var aSettingWithAVeryLongNameThatMakesTheCloudKeyTooLong = 1
}
