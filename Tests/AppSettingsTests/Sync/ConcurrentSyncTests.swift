import AppSettingsTesting
import Foundation
import Testing

@testable import AppSettings

/// Syncing while other threads assign, save and deliver; run under ThreadSanitizer too.
@Suite("Syncing across devices, concurrently", .capturedLibraryLog)
struct ConcurrentSyncTests {
    @Test("assignments, saves and deliveries on three threads: no race, and the devices converge")
    func concurrentSyncConverges() throws {
        let cloud = CloudKeyValueStoreSimulator()
        let phone = try SyncTests.Device(cloud)
        let laptop = try SyncTests.Device(cloud)
        cloud.deliverChanges()
        let failures = Protected<[String]>([])
        Threads.run(3) { thread in
            for round in 0..<40 {
                do {
                    switch thread {
                    case 0:
                        phone.settings.fontSize = 10 + round % 20
                        if round.isMultiple(of: 3) { phone.settings.theme = "phone \(round)" }
                        try phone.settings.synchronizeToUserDefaults()
                    case 1:
                        laptop.settings.fontSize = 11 + round % 19
                        laptop.settings.volume = Double(round) / 40
                        try laptop.settings.synchronizeToUserDefaults()
                    default:
                        cloud.deliverChanges()
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for _ in 0..<2 {
            try phone.settings.synchronizeToUserDefaults()
            try laptop.settings.synchronizeToUserDefaults()
            cloud.deliverChanges()
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let server = cloud.settingValues(for: phone.store)
        for device in [phone, laptop] {
            #expect(device.settings.fontSize == server[SyncTests.key("fontSize")] as? Int)
            #expect(device.settings.theme == server[SyncTests.key("theme")] as? String)
            #expect(device.settings.volume == server[SyncTests.key("volume")] as? Double)
            #expect(device.relaunched().fontSize == device.settings.fontSize)
        }
    }
}
