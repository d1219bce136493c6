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
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        AppleProcess.lock.lock()
        defer { AppleProcess.lock.unlock() }
        guard AppleProcess.appGroups.contains(groupIdentifier) else { return nil }
        return AppleProcess.containersDirectory.appendingPathComponent(groupIdentifier, isDirectory: true)
    }
}

extension ProcessInfo {
    @available(macOS, unavailable)
    public func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {
        AppleProcess.lock.lock()
        let refused = AppleProcess.isBeingSuspended
        AppleProcess.expiringActivities.begun += 1
        if refused { AppleProcess.expiringActivities.refused += 1 }
        AppleProcess.lock.unlock()
        // Asynchronously, on another queue: `false` while the assertion is held, or `true` at once
        // when it is refused.
        DispatchQueue.global().async { block(refused) }
    }
}

// FileManager.ubiquityIdentityToken (documentation/foundation/filemanager/ubiquityidentitytoken):
// `var ubiquityIdentityToken: (any NSCoding & NSCopying & NSObjectProtocol)? { get }`, iOS 6+,
// macOS 10.8+; "If iCloud is unavailable or there is no logged-in user, the value of this property
// is `nil`." The stand-in's account is set by tests.
extension AppleProcess {
    /// The token `ubiquityIdentityToken` returns: an `NSString` stands for Apple's opaque object.
    nonisolated(unsafe) public static var ubiquityIdentity: String?
}

extension FileManager {
    public var ubiquityIdentityToken: (any NSCoding & NSCopying & NSObjectProtocol)? {
        AppleProcess.lock.lock()
        defer { AppleProcess.lock.unlock() }
        return AppleProcess.ubiquityIdentity.map { NSString(string: $0) }
    }
}
