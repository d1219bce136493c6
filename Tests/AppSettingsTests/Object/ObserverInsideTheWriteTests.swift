import Foundation
import Testing

@testable import AppSettings

/// Apple's `UserDefaults` posts `didChangeNotification` "on the same thread you used to make the
/// change", inside the library's write, under its locks (issue 47; the model of Apple's behaviour,
/// IntegrationTests/AppleBranches, posts it so; corelibs posts nothing, so on Linux these tests
/// check only that nothing changes for an observer that is never called). An app observer with
/// `queue: nil` that saves, reverts, resets, removes or reads the object inside that notice
/// finishes: a call that needs a lock the write holds is made once the write let go of it.
@Suite(.serialized) struct ObserverInsideTheWriteTests {
    @Test(arguments: ["save", "revert", "reset", "remove", "read"])
    func anObserverThatCallsTheObjectInsideTheWritesNoticeFinishes(_ call: String) throws {
        let suite = TemporarySuite()
        let settings = MySettings(userDefaults: suite.userDefaults)
        let calls = Protected(0)
        let read = Protected<Theme?>(nil)
        let token = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: nil, queue: nil
        ) { notification in
            guard (notification.object as AnyObject?) === suite.userDefaults,
                calls.withLock({ count in
                    count += 1
                    return count == 1
                })
            else { return }
            switch call {
            case "save":
                settings.soundLevel = 0.25
                try? settings.synchronizeToUserDefaults()
            case "revert": try? settings.resetToUserDefaults()
            case "reset": settings.resetToDeveloperDefaults()
            case "remove": try? settings.removeFromUserDefaults()
            default: read.withLock { $0 = settings.theme }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        #if canImport(Darwin) || APPLE_STAND_INS
            #expect(calls.withLock { $0 } > 0, "the model posts the notice on the writing thread")
            let loaded = MySettings(userDefaults: suite.another())
            switch call {
            case "save":
                // Made once the write ended, before the call that wrote returned.
                #expect(loaded.soundLevel == 0.25 && loaded.theme == .dark)
                #expect(!settings.hasUnsavedChanges)
            case "revert":
                #expect(settings.theme == .dark && !settings.hasUnsavedChanges)
            case "reset":
                #expect(settings.theme == .light && settings.hasUnsavedChanges)
            case "remove":
                #expect(settings.theme == .light && loaded.theme == .light)
            default:
                #expect(read.withLock { $0 } != nil)
            }
        #endif
    }
}
