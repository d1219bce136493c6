import Dispatch
import Foundation

/// What the library needs of the world around a cloud store beyond the store itself: a clock to
/// check the store again later, and the events after which it checks at once (the iCloud account
/// changed, the app returned to the foreground).
///
/// A store may bring its own (`CloudKeyValueStoreSimulator`'s devices run the checks in simulated
/// time and tell of their sign-ins); any other store gets ``SystemCloudEnvironment``.
package protocol CloudEnvironment: AnyObject, Sendable {
    /// Runs `work` once, `seconds` from now, on any thread, holding no lock of the caller's.
    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void)

    /// Calls `observer` after each event until the token is passed to `removeEventObserver(_:)`.
    func addEventObserver(_ observer: @escaping @Sendable (CloudEnvironmentEvent) -> Void) -> any NSObjectProtocol

    /// Stops the calls of the observer that `token` was returned for.
    func removeEventObserver(_ token: any NSObjectProtocol)
}

/// An event after which a syncing object checks its store at once.
package enum CloudEnvironmentEvent: Sendable, Equatable {
    /// The iCloud account changed, or the user signed in or out (Apple, `ubiquityIdentityToken`:
    /// "When the user logs in or out of iCloud or changes accounts, the system posts an
    /// `NSUbiquityIdentityDidChange` notification").
    case identityChanged
    /// The app returned to the foreground (Apple, `synchronize()`: call it "only at launch or
    /// when your app returns to the foreground").
    case enteredForeground
}

/// The system's clock (a dispatch queue's timer) and its notices of the account and the
/// foreground, where the platform posts them.
package final class SystemCloudEnvironment: CloudEnvironment {
    package static let shared = SystemCloudEnvironment()

    private let queue = DispatchQueue(label: "AppSettings.cloudChecks", qos: .utility)

    package func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + seconds, execute: work)
    }

    package func addEventObserver(
        _ observer: @escaping @Sendable (CloudEnvironmentEvent) -> Void
    ) -> any NSObjectProtocol {
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(forName: Self.identityDidChange, object: nil, queue: nil) { _ in
                observer(.identityChanged)
            },
            center.addObserver(forName: Self.willEnterForeground, object: nil, queue: nil) { _ in
                observer(.enteredForeground)
            },
        ]
        return Tokens(tokens)
    }

    package func removeEventObserver(_ token: any NSObjectProtocol) {
        guard let tokens = token as? Tokens else { return }
        for token in tokens.tokens { NotificationCenter.default.removeObserver(token) }
    }

    /// `NSNotification.Name.NSUbiquityIdentityDidChange`, by its name: Foundation posts it on
    /// Apple platforms; on Linux nobody does.
    static let identityDidChange = Notification.Name("NSUbiquityIdentityDidChangeNotification")

    /// UIKit's `UIApplication.willEnterForegroundNotification`, by its name (the library links
    /// neither UIKit nor AppKit). A Mac app has no foreground to return to, and becomes active at
    /// every click into it: more often than Apple advises reading the store ("The only
    /// recommended time to call this method is upon app launch, or upon returning to the
    /// foreground", `NSUbiquitousKeyValueStore.synchronize()`), so on macOS the store is read at
    /// `startSyncing`, on its notices and at the timed checks. Nobody posts it on Linux, macOS or
    /// watchOS (WatchKit's notice has another name: a watch app's checks are the timed ones).
    static let willEnterForeground = Notification.Name("UIApplicationWillEnterForegroundNotification")

    /// The observers' tokens, as one.
    private final class Tokens: NSObject, @unchecked Sendable {
        // Immutable after init; NotificationCenter's tokens are used only to remove them.
        let tokens: [any NSObjectProtocol]
        init(_ tokens: [any NSObjectProtocol]) { self.tokens = tokens }
    }
}

/// When a syncing object checks its store again by itself, in seconds after a trigger
/// (`startSyncing`, a save, a resend, an account change, a discarded write): doubling from 2 s
/// to 256 s, then every 5 minutes while it syncs (a backoff bounded at 5 minutes). A new
/// trigger starts the sequence again. Apple does not say when a first download ends, and posts
/// no notice for it when no write was discarded (nor, on a device offline for a while, when it
/// comes back); a check that finds the store's local copy holding what the set recorded
/// (`CloudRecord.isSettled`) reads nothing else and writes nothing.
enum CloudRecheckSchedule {
    static let delays: [Double] = [2, 4, 8, 16, 32, 64, 128, 256]
    static let longestDelay: Double = 300

    /// The delay before check number `step` (from 0) of a sequence.
    static func delay(ofStep step: Int) -> Double {
        step < delays.count ? delays[step] : longestDelay
    }
}
