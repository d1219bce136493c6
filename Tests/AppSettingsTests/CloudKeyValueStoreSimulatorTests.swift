import Foundation
import Testing

@testable import AppSettings

/// The simulator on its own, as a test of another library would use it.
@Suite("Cloud key-value store simulator")
struct CloudKeyValueStoreSimulatorTests {
    let cloud = CloudKeyValueStoreSimulator()

    final class Recorder: @unchecked Sendable {
        let changes = Protected<[CloudKeyValueStoreChange]>([])
        var all: [CloudKeyValueStoreChange] { changes.withLock { $0 } }
    }

    static func observed(_ device: CloudKeyValueStoreSimulator.Device) -> Recorder {
        let recorder = Recorder()
        _ = device.addChangeObserver { change in recorder.changes.withLock { $0.append(change) } }
        return recorder
    }

    @Test("notices: initial sync first, other devices' writes in order, never one's own writes")
    func orderOfNotices() {
        let first = cloud.makeDevice()
        let second = cloud.makeDevice()
        let firstNotices = Self.observed(first)
        let secondNotices = Self.observed(second)
        first.set("early", forKey: "a")  // before the initial sync: discarded
        cloud.deliverChanges()
        #expect(firstNotices.all == [CloudKeyValueStoreChange(reason: .initialSyncChange, changedKeys: [])])
        #expect(first.object(forKey: "a") == nil)

        first.set(1, forKey: "a")
        second.set(2, forKey: "a")
        second.set("x", forKey: "b")
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: first)["a"] as? Int == 2)
        #expect(firstNotices.all.last == CloudKeyValueStoreChange(reason: .serverChange, changedKeys: ["a", "b"]))
        #expect(secondNotices.all.count == 1)  // its initial sync only
        #expect(first.object(forKey: "b") as? String == "x")
    }

    @Test("Apple's limits: long keys, large values, the total and the key count are refused with a notice")
    func limits() {
        let device = cloud.makeDevice()
        let notices = Self.observed(device)
        cloud.deliverChanges()
        let longKey = String(repeating: "k", count: 65)
        device.set(1, forKey: longKey)
        device.set(Data(count: 1_048_577), forKey: "large")
        device.set(Data(count: 1_000_000), forKey: "first")
        device.set(Data(count: 100_000), forKey: "second")
        cloud.deliverChanges()
        #expect(
            notices.all.last
                == CloudKeyValueStoreChange(reason: .quotaViolationChange, changedKeys: [longKey, "large", "second"]))
        #expect(cloud.serverValues(for: device).keys.sorted() == ["first"])
        #expect(device.object(forKey: "second") == nil)

        device.removeObject(forKey: "first")
        for index in 0..<1_025 { device.set(index, forKey: "key\(index)") }
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: device).count == 1_024)
        #expect(notices.all.last == CloudKeyValueStoreChange(reason: .quotaViolationChange, changedKeys: ["key1024"]))
    }

    @Test("devices handed around as any CloudKeyValueStore; another simulator's device is left alone")
    func existentialDevices() {
        let device: any CloudKeyValueStore = cloud.makeDevice()
        let stranger: any CloudKeyValueStore = CloudKeyValueStoreSimulator().makeDevice()
        cloud.deliverChanges()
        device.set("value", forKey: "a")
        stranger.set("value", forKey: "a")
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: device)["a"] as? String == "value")
        #expect(cloud.serverValues(for: stranger).isEmpty)
        cloud.changeAccount(of: stranger)
        #expect(stranger.object(forKey: "a") as? String == "value")
        cloud.changeAccount(of: device)
        #expect(device.object(forKey: "a") == nil && cloud.serverValues(for: device).isEmpty)
    }

    @Test("an account change: a new, empty account, unsent writes dropped, the device told at once")
    func accountChange() {
        let device = cloud.makeDevice()
        let other = cloud.makeDevice()
        let notices = Self.observed(device)
        cloud.deliverChanges()
        device.set("old", forKey: "a")
        cloud.deliverChanges()
        device.set("unsent", forKey: "b")
        cloud.changeAccount(of: device)
        #expect(notices.all.last == CloudKeyValueStoreChange(reason: .accountChange, changedKeys: ["a", "b"]))
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: device).isEmpty)
        #expect(cloud.serverValues(for: other)["a"] as? String == "old")
        #expect(cloud.serverValues(for: other)["b"] == nil)
    }
}
