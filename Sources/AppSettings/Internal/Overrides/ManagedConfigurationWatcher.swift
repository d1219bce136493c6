import Foundation

/// Applies managed configuration again when it changes while the app runs: Apple platforms post
/// `UserDefaults.didChangeNotification` then. (corelibs posts it for no file; on Linux, post it
/// yourself to have the files read again, or call `resetToUserDefaults()`.)
///
/// The refresh runs on a queue of its own, never on the posting thread: Apple's `UserDefaults`
/// posts "on the same thread you used to make the change", and the library's own writes post it
/// while holding a domain's or a key's lock; a refresh takes each live object's synchronization
/// lock, so on the posting thread it could deadlock. On the queue, an object whose managed
/// configuration did not change is compared under its state's lock alone.
enum ManagedConfigurationWatcher {
    private static let queue = DispatchQueue(label: "AppSettings.managedConfiguration")

    static func start() { _ = started }

    private static let started: Bool = {
        _ = NotificationCenter.default.addObserver(
            forName: UserDefaults.didChangeNotification, object: nil, queue: nil
        ) { _ in
            queue.async {
                for object in StoreRegistry.liveObjects(where: { _ in true }) {
                    LogCapture.logging(for: object) { object.overrides.refreshManagedConfigurationIfChanged() }
                }
            }
        }
        return true
    }()

    /// Waits until the refreshes asked for so far have run (tests, and code that changed managed
    /// configuration and reads the settings next).
    static func waitForPendingRefreshes() {
        queue.sync {}
    }
}
