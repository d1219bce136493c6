// swift-format-ignore-file
// (Apple's names and declarations, as its SDK spells them.)
// Stand-ins of Foundation members that exist on Apple platforms only, with the Swift signatures
// of Apple's documentation:
// - FileManager.containerURL(forSecurityApplicationGroupIdentifier:) (documentation/foundation/
//   filemanager/containerurl(forsecurityapplicationgroupidentifier:)): iOS 7+, macOS 10.8+;
// - ProcessInfo.performExpiringActivity(withReason:using:) (documentation/foundation/processinfo/
//   performexpiringactivity(withreason:using:)): iOS 8.2+, tvOS, watchOS, visionOS, Mac Catalyst;
//   not macOS (API_UNAVAILABLE(macos) in NSProcessInfo.h).

import Foundation

/// What the stand-ins of this file do, set by tests.
public enum AppleProcess {
    /// The App Groups the process is entitled to: a container directory each, under a scratch
    /// directory of the process. Others have no container (`containerURL` returns `nil`, as on iOS).
    nonisolated(unsafe) public static var appGroups: Set<String> = []
    /// The directory the containers are in.
    public static let containersDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("AppleStandIns-\(getpid())-containers", isDirectory: true)
    /// Whether the process is being suspended: expiring activities are then refused at once.
    nonisolated(unsafe) public static var isBeingSuspended = false
    /// How many expiring activities were begun, and how many of them were refused.
    nonisolated(unsafe) public static var expiringActivities = (begun: 0, refused: 0)
    static let lock = NSLock()
}

extension FileManager {
    // documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:):
    // "In iOS, the value is nil when the group identifier is invalid. In macOS, a URL of the
    // expected form is always returned, even if the app group is invalid" (AppleBehaviour.swift:
    // `AppleProcess.platform`; on macOS an invalid group's directory cannot be made).
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        AppleProcess.lock.lock()
        defer { AppleProcess.lock.unlock() }
        guard AppleProcess.appGroups.contains(groupIdentifier) else {
            guard AppleProcess.platform == .macOS else { return nil }
            return AppleProcess.unentitledContainersDirectory.appendingPathComponent(groupIdentifier, isDirectory: true)
        }
        return AppleProcess.containersDirectory.appendingPathComponent(groupIdentifier, isDirectory: true)
    }
}

extension ProcessInfo {
    // documentation/foundation/processinfo/performexpiringactivity(withreason:using:): "Performs
    // the specified block asynchronously and notifies you if the process is about to be
    // suspended." The block's parameter: "expired: A Boolean indicating whether the process is
    // about to be suspended. If the value is true, the process is about to be suspended so you
    // should take whatever steps are needed to stop in progress work." So the block may be called
    // with `true` at once (refused), or with `false` and then, while that call still runs, a second
    // time with `true` (AppleBehaviour.swift: `AppleProcess.expiringActivityAnswer`).
    @available(macOS, unavailable)
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        AppleProcess.lock.lock()
        let answer = AppleProcess.isBeingSuspended ? .refused : AppleProcess.expiringActivityAnswer
        let refused: Bool
        if case .refused = answer { refused = true } else { refused = false }
        AppleProcess.expiringActivities.begun += 1
        if refused { AppleProcess.expiringActivities.refused += 1 }
        AppleProcess.lock.unlock()
        guard case .expiresWhileRunning(let delay) = answer else {
            DispatchQueue.global().async { block(refused) }
            return
        }
        let running = NSLock()
        nonisolated(unsafe) var isRunning = true
        DispatchQueue.global().async {
            block(false)
            running.lock()
            isRunning = false
            running.unlock()
        }
        let nanoseconds = UInt64(delay.components.seconds) * 1_000_000_000
            + UInt64(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
            running.lock()
            let stillRunning = isRunning
            running.unlock()
            guard stillRunning else { return }
            block(true)
            // The expired call returned: the process is suspended now.
            AppleProcess.whenSuspended?()
        }
    }
}

// FileManager.ubiquityIdentityToken (documentation/foundation/filemanager/ubiquityidentitytoken):
// `var ubiquityIdentityToken: (any NSCoding & NSCopying & NSObjectProtocol)? { get }`, iOS 6+,
// macOS 10.8+; "An opaque token that represents the current user's iCloud Drive Documents
// identity"; "If iCloud is unavailable or there is no logged-in user, the value of this property
// is `nil`"; "If you stored or archived the previous token, compare that token to the newly
// obtained one using the isEqual(_:) method to determine if the users are the same or different."
// The token is opaque: nothing says its archive stays the same bytes from one system version to
// the next, so the model's archive changes with `AppleProcess.ubiquityTokenArchiveFormat` (an
// update of the system) while tokens of one identity stay equal. The account is set by tests.
extension AppleProcess {
    /// The identity `ubiquityIdentityToken` stands for.
    nonisolated(unsafe) public static var ubiquityIdentity: String?
    /// How the system archives the token (another value: another system version).
    nonisolated(unsafe) public static var ubiquityTokenArchiveFormat = 1
}

/// The opaque token of an iCloud identity: equal for one identity, archived as the system does.
public final class UbiquityIdentityToken: NSObject, NSCoding, NSCopying, @unchecked Sendable {
    let identity: String

    init(identity: String) { self.identity = identity }

    public func encode(with coder: NSCoder) {
        coder.encode(identity, forKey: "identity")
        coder.encode(AppleProcess.ubiquityTokenArchiveFormat, forKey: "format")
    }

    public init?(coder: NSCoder) {
        guard let identity = coder.decodeObject(forKey: "identity") as? String else { return nil }
        self.identity = identity
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
    public override func isEqual(_ object: Any?) -> Bool { (object as? UbiquityIdentityToken)?.identity == identity }
    public override var hash: Int { identity.hashValue }
}

extension FileManager {
    public var ubiquityIdentityToken: (any NSCoding & NSCopying & NSObjectProtocol)? {
        AppleProcess.lock.lock()
        defer { AppleProcess.lock.unlock() }
        return AppleProcess.ubiquityIdentity.map { UbiquityIdentityToken(identity: $0) }
    }
}
