import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

extension SyncTests {
    @Test("a value over iCloud's limits fails alone: stored here, reported, the others synced")
    func valueOverTheLimitsFailsAlone() async throws {
        let (phone, laptop) = try twoDevices()
        var events = phone.settings.changes.makeAsyncIterator()
        phone.settings.photo = Data(count: 1_100_000)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        #expect(await events.next() == .settingsChanged(["photo"]))
        #expect(await events.next() == .settingsChanged(["theme"]))
        guard case .syncFailed(.cloudValueRefused(let key, let setting, let reason)) = await events.next() else {
            Issue.record("the refused value is not reported")
            return
        }
        #expect(key == Self.key("photo") && setting == "photo")
        #expect(reason.contains("takes at least 1100000 bytes, more than the 1048576-byte limit of one value"))
        #expect(phone.relaunched().photo == Data(count: 1_100_000), "stored here")
        #expect(laptop.settings.theme == "dark" && laptop.settings.photo.isEmpty)
        #expect(cloud.settingValues(for: phone.store)[Self.key("photo")] == nil)
    }

    @Test("a value is measured as Foundation writes it, but for one whose data alone is over the limit")
    func byteCounts() throws {
        func foundationCount(_ value: Any) throws -> Int {
            try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0).count
        }
        let small: [String: Any] = ["$version": 3, "$tag": -5, "$value": ["a": Data(count: 1000), "b": [1.5, "c"]]]
        #expect(try CloudLimits.byteCount(of: small) == foundationCount(small))
        let limit = CloudLimits.maximumValueByteCount
        let atTheLimit: [String: Any] = ["$value": [Data(count: limit / 2), Data(count: limit / 2)]]
        #expect(try CloudLimits.byteCount(of: atTheLimit) == foundationCount(atTheLimit))
        // Not measured further: its data's bytes, fewer than Foundation's and still over the limit.
        let over: [String: Any] = ["$value": [Data(count: limit / 2), Data(count: limit / 2 + 1)]]
        #expect(CloudLimits.byteCount(of: over) == limit + 1)
        #expect(CloudLimits.byteCount(of: ["a": Data(count: 10), "b": URL(fileURLWithPath: "/")]) == nil)
    }

    @Test("values over the store's total quota are refused by the cloud, reported, and kept here")
    func quotaViolationIsReported() async throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.photo = Data(count: 600_000)
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.photo.count == 600_000)
        var events = phone.settings.changes.makeAsyncIterator()
        phone.settings.thumbnail = Data(count: 600_000)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        #expect(await events.next() == .settingsChanged(["thumbnail"]))
        #expect(await events.next() == .settingsChanged(["theme"]))
        cloud.deliverChanges()

        guard case .syncFailed(.cloudValueRefused(let key, "thumbnail", _)) = await events.next() else {
            Issue.record("the cloud's refusal is not reported")
            return
        }
        #expect(key == Self.key("thumbnail"))
        #expect(phone.settings.thumbnail.count == 600_000)
        #expect(phone.relaunched().thumbnail.count == 600_000)
        #expect(laptop.settings.theme == "dark" && laptop.settings.thumbnail.isEmpty)
        // Later notices do not take the cloud's older value over the refused one.
        laptop.settings.fontSize = 20
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.fontSize == 20 && phone.settings.thumbnail.count == 600_000)
    }

    @Test("a store that synced before syncing started: its values are taken at once; a refusal is reported once")
    func storeWithValuesBeforeStarting() async throws {
        let phone = try Device(cloud)
        phone.settings.photo = Data(count: 700_000)
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        let tablet = try Device(cloud, syncing: false)
        cloud.deliverChanges()  // the tablet's store syncs; its object does not listen yet
        // Its store's local copy holds the phone's photo: taken when syncing starts.
        try tablet.settings.startSyncing(with: tablet.store)
        #expect(tablet.settings.photo.count == 700_000)
        var events = tablet.settings.changes.makeAsyncIterator()
        tablet.settings.thumbnail = Data(count: 700_000)
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        #expect(await events.next() == .settingsChanged(["thumbnail"]))
        guard case .syncFailed(.cloudValueRefused(_, "thumbnail", _)) = await events.next() else {
            Issue.record("the cloud's refusal is not reported")
            return
        }
        #expect(tablet.settings.thumbnail.count == 700_000)
        cloud.deliverChanges()
        #expect(cloud.settingValues(for: tablet.store)[Self.key("thumbnail")] == nil)
        tablet.settings.theme = "green"
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.theme == "green")
        #expect(tablet.settings.photo.count == 700_000)
    }

    @Test("a value refused before the initial sync's merge is not sent again in a loop")
    func refusalBeforeAnyNotice() throws {
        let phone = try Device(cloud, syncing: false)
        let tablet = try Device(cloud, syncing: false)
        cloud.deliverChanges()
        phone.store.set(Data(count: 900_000), forKey: "another app's key")
        cloud.deliverChanges()
        try tablet.settings.startSyncing(with: tablet.store)  // nothing of this set in the store yet
        let notices = CloudKeyValueStoreSimulatorTests.observed(tablet.store)
        tablet.settings.thumbnail = Data(count: 200_000)
        tablet.settings.theme = "green"
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        #expect(notices.all.filter { $0.reason == .quotaViolationChange }.count == 1)
        #expect(cloud.settingValues(for: phone.store)[Self.key("theme")] as? String == "green")
        #expect(cloud.settingValues(for: phone.store)[Self.key("thumbnail")] == nil)
        try tablet.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(notices.all.filter { $0.reason == .quotaViolationChange }.count == 1)
    }
}
