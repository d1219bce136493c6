import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// Settings synced across devices through a cloud key-value store (issue 21), on the simulator:
/// each device is a real `UserDefaults` suite with its own settings object.
@Suite("Syncing across devices", .capturedLibraryLog)
struct SyncTests {
    let cloud = CloudKeyValueStoreSimulator()

    /// One simulated device: its suite, its store and its settings object.
    final class Device: @unchecked Sendable {
        let suite = TemporarySuite.forSettings()
        let store: CloudKeyValueStoreSimulator.Device
        let settings: CloudSettings

        init(_ cloud: CloudKeyValueStoreSimulator, syncing: Bool = true) throws {
            store = cloud.makeDevice()
            settings = CloudSettings(userDefaults: suite.userDefaults)
            if syncing { try settings.startSyncing(with: store) }
        }

        /// What the next launch of the app on this device loads.
        func relaunched() -> CloudSettings {
            CloudSettings(userDefaults: suite.another())
        }
    }

    static func key(_ name: String) -> String { "AppSettings.CloudSettings.\(name)" }

    /// Two devices that synced once.
    func twoDevices() throws -> (Device, Device) {
        let devices = (try Device(cloud), try Device(cloud))
        cloud.deliverChanges()
        return devices
    }

    @Test("a change travels to the other device, which stores it and tells its observers")
    func changeTravels() async throws {
        let (phone, laptop) = try twoDevices()
        var events = laptop.settings.changes.makeAsyncIterator()
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        #expect(laptop.settings.theme == "light")  // nothing travels before the delivery

        cloud.deliverChanges()
        #expect(laptop.settings.theme == "dark")
        #expect(await events.next() == .settingsChanged(["theme"]))
        #expect(!laptop.settings.hasUnsavedChanges)
        #expect(laptop.relaunched().theme == "dark")
        #expect(cloud.settingValues(for: phone.store)[Self.key("theme")] as? String == "dark")
    }

    @Test("from a fresh start one delivery is enough: the initial syncs, then the change")
    func freshStartOneDelivery() throws {
        let phone = try Device(cloud)
        let laptop = try Device(cloud)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.theme == "dark")
        #expect(laptop.relaunched().theme == "dark")
    }

    @Test("different settings changed on two devices are both kept everywhere")
    func differentSettingsBothKept() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        laptop.settings.fontSize = 16
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        for device in [phone, laptop] {
            #expect(device.settings.theme == "dark" && device.settings.fontSize == 16)
            let relaunched = device.relaunched()
            #expect(relaunched.theme == "dark" && relaunched.fontSize == 16)
        }
    }

    @Test("the same setting changed on two devices that had not seen each other's change: both end with one of them")
    func sameSettingConverges() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.fontSize = 14
        try phone.settings.synchronizeToUserDefaults()
        laptop.settings.fontSize = 18
        try laptop.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        let winner = phone.settings.fontSize
        #expect(winner == 14 || winner == 18)
        #expect(laptop.settings.fontSize == winner)
        #expect(phone.relaunched().fontSize == winner)
        #expect(cloud.settingValues(for: phone.store)[Self.key("fontSize")] as? Int == winner)
    }

    @Test("a change made after seeing the other device's change wins, whatever order the uploads land in")
    func laterChangeWins() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.fontSize = 14
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.fontSize == 14)
        laptop.settings.fontSize = 20  // made after seeing 14
        try laptop.settings.synchronizeToUserDefaults()
        // The laptop's clock is behind: iCloud keeps the phone's older write; the laptop finds
        // its newer version lost and sends it again.
        cloud.setClockOffset(-1_000, for: laptop.store)
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(phone.settings.fontSize == 20 && laptop.settings.fontSize == 20)
        #expect(cloud.settingValues(for: phone.store)[Self.key("fontSize")] as? Int == 20)
    }

    @Test("the same setting changed on a device that was not syncing: one value wins everywhere, and it is said")
    func conflictIsDecidedAlike() async throws {
        let (phone, laptop) = try twoDevices()
        laptop.settings.stopSyncing()
        laptop.settings.fontSize = 18
        laptop.settings.theme = "blue"
        try laptop.settings.synchronizeToUserDefaults()
        phone.settings.fontSize = 14
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        var laptopEvents = laptop.settings.changes.makeAsyncIterator()

        try laptop.settings.startSyncing(with: laptop.store)
        cloud.deliverChanges()
        // The change only the laptop made was sent when it resumed.
        #expect(phone.settings.theme == "blue")
        #expect(phone.settings.fontSize == laptop.settings.fontSize)
        #expect(laptop.relaunched().fontSize == phone.settings.fontSize)
        if laptop.settings.fontSize == 14 {
            #expect(await laptopEvents.next() == .settingsChanged(["fontSize"]))
            #expect(await laptopEvents.next() == .syncConflicts(["fontSize"]))
        }
    }

    @Test("a setting not declared syncs: true stays on its device")
    func unsyncedSettingStaysHome() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.windowFrame = "10 10 400 300"
        phone.settings.theme = "dark"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()

        #expect(laptop.settings.theme == "dark")
        #expect(laptop.settings.windowFrame == CloudSettings.defaultFrame)
        #expect(cloud.settingValues(for: phone.store).keys.sorted() == [Self.key("theme")])
    }

    @Test("incoming values pass validate:, and a value that does not fit is reported and not taken")
    func incomingValuesAreValidated() async throws {
        let (phone, laptop) = try twoDevices()
        var events = laptop.settings.changes.makeAsyncIterator()
        // Another version of the app, or another app, wrote these.
        phone.store.set(7.5, forKey: Self.key("volume"))
        phone.store.set("large", forKey: Self.key("fontSize"))
        cloud.deliverChanges()

        #expect(laptop.settings.volume == 1)
        #expect(laptop.settings.fontSize == 12)
        #expect(await events.next() == .settingsChanged(["volume"]))
        guard case .syncFailed(.cloudValueUnreadable(let key, let setting, _)) = await events.next() else {
            Issue.record("the value that does not fit is not reported")
            return
        }
        #expect(key == Self.key("fontSize") && setting == "fontSize")
        #expect(laptop.relaunched().volume == 1)
    }

    @Test("checkAfterDecode() runs on values taken from the cloud")
    func incomingValuesAreCheckedTogether() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.fontSize = 40
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        // CloudSettings.checkAfterDecode() keeps fontSize at most 32 on load.
        #expect(laptop.settings.fontSize == 32)
    }

    @Test("a nested settings object travels as one dictionary value")
    func nestedObjectTravels() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.audio.output = "headphones"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.audio.output == "headphones" && !laptop.settings.audio.muted)
        let server = cloud.settingValues(for: phone.store)[Self.key("audio")] as? [String: Any]
        #expect(server?["output"] as? String == "headphones")
        #expect(laptop.relaunched().audio.output == "headphones")
    }

    @Test("a nil value travels as the key's removal")
    func nilTravels() throws {
        let (phone, laptop) = try twoDevices()
        phone.settings.nickname = "Ada"
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.nickname == "Ada")
        phone.settings.nickname = nil
        try phone.settings.synchronizeToUserDefaults()
        cloud.deliverChanges()
        #expect(laptop.settings.nickname == nil)
        #expect(cloud.settingValues(for: phone.store)[Self.key("nickname")] == nil)
    }
}

/// Settings of which most follow the user to their other devices.
final class CloudSettings: AppSettingsObject, @unchecked Sendable {
    static let defaultFrame = "0 0 800 600"
    @Setting(syncs: true) var theme = "light"
    @Setting(syncs: true, validate: { min(max($0, 0), 1) }) var volume = 0.5
    @Setting(syncs: true) var fontSize = 12
    @Setting var windowFrame = CloudSettings.defaultFrame
    @Setting(syncs: true) var photo = Data()
    @Setting(syncs: true) var thumbnail = Data()
    @Setting(syncs: true) var nickname: String? = nil
    @Setting(syncs: true) var audio = CloudAudioSettings()

    override func checkAfterDecode() {
        if fontSize > 32 { fontSize = 32 }
    }
}

/// A nested settings object: synced as one value (a dictionary).
final class CloudAudioSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var muted = false
    @Setting var output = "speakers"
}

extension CloudKeyValueStoreSimulator {
    /// What the account of `device` holds, each synced setting's value taken out of its envelope
    /// (`["$version": …, "$tag": …, "$value": …]`); a key whose value is `nil` is left out.
    func settingValues(for device: any CloudKeyValueStore) -> [String: Any] {
        serverValues(for: device).compactMapValues { value in
            guard let envelope = value as? [String: Any], envelope["$version"] != nil else { return value }
            return envelope["$value"]
        }
    }
}
