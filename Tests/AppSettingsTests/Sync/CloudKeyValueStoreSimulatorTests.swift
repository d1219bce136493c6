import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// The simulator on its own, as a test of another library would use it: each of Apple's rules it
/// models (see its documentation), one test each.
@Suite("Cloud key-value store simulator", .capturedLibraryLog)
struct CloudKeyValueStoreSimulatorTests {
    let cloud = CloudKeyValueStoreSimulator()

    final class Recorder: @unchecked Sendable {
        let changes = Protected<[CloudKeyValueStoreChange]>([])
        let threads = Protected<[Bool]>([])
        var all: [CloudKeyValueStoreChange] { changes.withLock { $0 } }
    }

    static func observed(_ device: CloudKeyValueStoreSimulator.Device) -> Recorder {
        let recorder = Recorder()
        _ = device.addChangeObserver { change in
            recorder.changes.withLock { $0.append(change) }
            recorder.threads.withLock { $0.append(Thread.isMainThread) }
        }
        return recorder
    }

    @Test("the first download is silent; a write before it is discarded and then told; never one's own writes")
    func firstDownload() {
        let first = cloud.makeDevice()
        let second = cloud.makeDevice()
        let firstNotices = Self.observed(first)
        let secondNotices = Self.observed(second)
        first.set("early", forKey: "a")  // before the initial download: discarded
        cloud.deliverChanges()
        #expect(firstNotices.all == [CloudKeyValueStoreChange(reason: .initialSyncChange, changedKeys: [])])
        #expect(secondNotices.all.isEmpty)  // a silent first download
        #expect(first.object(forKey: "a") == nil)

        second.set("x", forKey: "b")
        cloud.deliverChanges()
        #expect(firstNotices.all.last == CloudKeyValueStoreChange(reason: .serverChange, changedKeys: ["b"]))
        #expect(secondNotices.all.isEmpty)
        #expect(first.object(forKey: "b") as? String == "x")
    }

    @Test("conflicts: the newest write by its device's clock wins, even when uploaded first; or the last upload")
    func conflicts() {
        let first = cloud.makeDevice()
        let second = cloud.makeDevice()
        cloud.deliverChanges()
        first.set(1, forKey: "a")
        second.set(2, forKey: "a")  // written later
        cloud.upload(from: second)
        cloud.upload(from: first)  // uploaded later, written earlier: loses
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: first)["a"] as? Int == 2)
        #expect(first.object(forKey: "a") as? Int == 2)

        cloud.setClockOffset(100, for: first)  // its clock is ahead: its write wins
        second.set(3, forKey: "a")
        first.set(4, forKey: "a")
        second.set(5, forKey: "a")
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: second)["a"] as? Int == 4)

        let lastUpload = CloudKeyValueStoreSimulator(options: .init(conflictResolution: .lastUploadWins))
        let third = lastUpload.makeDevice()
        let fourth = lastUpload.makeDevice()
        lastUpload.deliverChanges()
        third.set(1, forKey: "a")
        fourth.set(2, forKey: "a")
        lastUpload.upload(from: fourth)
        lastUpload.upload(from: third)
        #expect(lastUpload.serverValues(for: third)["a"] as? Int == 1)
    }

    @Test("each device moves alone: partial uploads and downloads, offline devices, early notices")
    func stepByStep() {
        let first = cloud.makeDevice()
        let second = cloud.makeDevice()
        let notices = Self.observed(second)
        cloud.deliverChanges()
        first.set(1, forKey: "a")
        first.set(2, forKey: "b")
        cloud.upload(from: first, count: 1)
        #expect(cloud.serverValues(for: first).keys.sorted() == ["a"])
        cloud.upload(from: first)
        cloud.announceEarly(to: second)
        #expect(notices.all.last == CloudKeyValueStoreChange(reason: .serverChange, changedKeys: ["a", "b"]))
        #expect(second.object(forKey: "a") == nil)  // the notice came before its data
        cloud.setOnline(false, for: second)
        cloud.download(to: second)
        #expect(second.object(forKey: "a") == nil)
        cloud.setOnline(true, for: second)
        cloud.download(to: second, count: 1)
        #expect(second.object(forKey: "a") as? Int == 1 && second.object(forKey: "b") == nil)
        cloud.download(to: second)
        #expect(second.object(forKey: "b") as? Int == 2)
    }

    @Test("signed out: writes stay on the device, travel after signing into the same account")
    func signedOut() {
        let device = cloud.makeDevice()
        cloud.deliverChanges()
        cloud.signOut(device)
        #expect(device.account == .signedOut)
        device.set("offline", forKey: "a")
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: cloud.firstAccount).isEmpty)
        cloud.signIn(device, to: cloud.firstAccount)
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: cloud.firstAccount)["a"] as? String == "offline")
    }

    @Test("another account: the local copy and unsent writes dropped at once, told at its first download")
    func accountChange() {
        let device = cloud.makeDevice()
        let other = cloud.makeDevice()
        let notices = Self.observed(device)
        cloud.deliverChanges()
        device.set("old", forKey: "a")
        cloud.deliverChanges()
        device.set("unsent", forKey: "b")
        let account = cloud.makeAccount(holding: ["c": "theirs"])
        cloud.signIn(device, to: account)
        #expect(device.object(forKey: "a") == nil && device.object(forKey: "b") == nil)
        #expect(device.account != other.account)
        cloud.deliverChanges()
        #expect(notices.all.last == CloudKeyValueStoreChange(reason: .accountChange, changedKeys: ["c"]))
        #expect(device.object(forKey: "c") as? String == "theirs")
        #expect(cloud.serverValues(of: account).keys.sorted() == ["c"])
        #expect(cloud.serverValues(for: other)["a"] as? String == "old")
        #expect(cloud.serverValues(for: other)["b"] == nil)
    }

    @Test("uploads that lag an account change: the old account's unsent writes reach it later, never the new one")
    func uploadsLagAccountChanges() {
        let cloud = CloudKeyValueStoreSimulator(options: .strict)
        let device = cloud.makeDevice()
        cloud.deliverChanges()
        device.set("unsent", forKey: "a")
        device.set("unsent too", forKey: "b")
        let account = cloud.makeAccount()
        cloud.signIn(device, to: account)
        #expect(device.object(forKey: "a") == nil)
        cloud.upload(from: device, count: 1)
        #expect(cloud.serverValues(of: cloud.firstAccount)["a"] as? String == "unsent")
        #expect(cloud.serverValues(of: cloud.firstAccount)["b"] == nil)
        cloud.signOut(device)
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: cloud.firstAccount)["b"] as? String == "unsent too")
        cloud.signIn(device, to: account)
        cloud.deliverChanges()
        device.set("new", forKey: "c")
        cloud.deliverChanges()
        #expect(cloud.serverValues(of: account).keys.sorted() == ["c"])
        #expect(device.object(forKey: "a") == nil && device.object(forKey: "b") == nil)
    }

    @Test("Apple's limits: a long key raises, large values, the total and the key count are refused with a notice")
    func limits() {
        let device = cloud.makeDevice()
        let notices = Self.observed(device)
        cloud.deliverChanges()
        let longKey = String(repeating: "k", count: 65)
        device.set(1, forKey: longKey)
        #expect(cloud.runtimeErrors == ["NSUbiquitousKeyValueStore: key '\(longKey)' is too long"])
        #expect(device.object(forKey: longKey) == nil)
        device.set(Data(count: 1_048_577), forKey: "large")
        device.set(Data(count: 1_000_000), forKey: "first")
        device.set(Data(count: 100_000), forKey: "second")
        cloud.deliverChanges()
        #expect(
            notices.all.last
                == CloudKeyValueStoreChange(reason: .quotaViolationChange, changedKeys: ["large", "second"]))
        #expect(cloud.serverValues(for: device).keys.sorted() == ["first"])
        #expect(device.object(forKey: "second") == nil)

        device.removeObject(forKey: "first")
        for index in 0..<1_025 { device.set(index, forKey: "key\(index)") }
        cloud.deliverChanges()
        #expect(cloud.serverValues(for: device).count == 1_024)
        #expect(notices.all.last == CloudKeyValueStoreChange(reason: .quotaViolationChange, changedKeys: ["key1024"]))
    }

    @Test("notices may leave out their keys, come on another thread, or from inside synchronize()")
    func noticeDelivery() {
        let quiet = CloudKeyValueStoreSimulator(options: .init(omitsChangedKeys: true))
        let writer = quiet.makeDevice()
        let reader = quiet.makeDevice()
        let readerNotices = Self.observed(reader)
        quiet.deliverChanges()
        writer.set(1, forKey: "a")
        quiet.deliverChanges()
        #expect(readerNotices.all == [CloudKeyValueStoreChange(reason: .serverChange, changedKeys: [])])

        let inside = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .insideSynchronize))
        let source = inside.makeDevice()
        let target = inside.makeDevice()
        let targetNotices = Self.observed(target)
        for device in [source, target] { inside.download(to: device) }
        source.set(1, forKey: "a")
        inside.upload(from: source)
        inside.download(to: target)
        #expect(targetNotices.all.isEmpty)
        _ = target.synchronize()
        #expect(targetNotices.all.count == 1)

        let threaded = CloudKeyValueStoreSimulator(options: .init(noticeDelivery: .onAnotherThread))
        let one = threaded.makeDevice()
        let two = threaded.makeDevice()
        let twoNotices = Self.observed(two)
        threaded.deliverChanges()
        one.set(1, forKey: "a")
        threaded.deliverChanges()
        threaded.waitForNotices()
        #expect(twoNotices.all.count == 1)
        #expect(twoNotices.threads.withLock { $0 } == [false])
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
}
