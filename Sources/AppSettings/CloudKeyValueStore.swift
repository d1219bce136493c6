import Foundation

/// A cloud key-value store that carries synced settings between a user's devices: what
/// `NSUbiquitousKeyValueStore` offers, which conforms on Apple platforms.
///
/// ```swift
/// try MySettings.shared.startSyncing(with: NSUbiquitousKeyValueStore.default)
/// ```
///
/// `CloudKeyValueStoreSimulator` (in the `AppSettingsTesting` product) makes devices that conform
/// too, for tests. A conforming type must be safe to call from any thread, as
/// `NSUbiquitousKeyValueStore` is: values are read and written in a local copy at once and
/// travel later, and other devices' changes arrive as change notices.
public protocol CloudKeyValueStore: AnyObject {
    /// The value stored under `key` (a property-list value), or `nil`.
    func object(forKey key: String) -> Any?

    /// Stores a property-list value under `key`, or removes the key when `value` is `nil`. The
    /// store uploads it later; a value the cloud refuses is reported by a change notice whose
    /// reason is ``CloudKeyValueStoreChange/Reason/quotaViolationChange``.
    func set(_ value: Any?, forKey key: String)

    /// Removes `key` and its value.
    func removeObject(forKey key: String)

    /// Tells the store that values are waiting to be uploaded and asks for new ones; returns
    /// whether the local copy could be synchronized.
    func synchronize() -> Bool

    /// Calls `observer` with every change notice of this store (another device's changes, the
    /// initial sync, a refused value, an account change), on whatever thread the store posts it,
    /// until the returned token is passed to ``removeChangeObserver(_:)``.
    func addChangeObserver(_ observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void) -> any NSObjectProtocol

    /// Stops the calls of the observer that `token` was returned for.
    func removeChangeObserver(_ token: any NSObjectProtocol)

    /// The account the store is signed into now. A settings object records the account its
    /// synced values belong to, so that none of them is ever sent to another account, even when
    /// the account changed while it was not observing. The default is
    /// ``CloudKeyValueStoreAccount/unknown``: account changes are then known only from change
    /// notices.
    var account: CloudKeyValueStoreAccount { get }
}

extension CloudKeyValueStore {
    /// ``CloudKeyValueStoreAccount/unknown``: account changes are known only from change notices.
    public var account: CloudKeyValueStoreAccount { .unknown }
}

/// The account a ``CloudKeyValueStore`` is signed into.
public enum CloudKeyValueStoreAccount: Sendable, Equatable {
    /// The store cannot tell.
    case unknown
    /// No account: values are kept on the device and travel nowhere.
    case signedOut
    /// An account, by an identifier that stays the same while the user stays signed into it
    /// (on Apple platforms, from `FileManager.ubiquityIdentityToken`).
    case signedIn(String)
}

/// A change notice of a ``CloudKeyValueStore``: why its values changed, and which keys.
///
/// `NSUbiquitousKeyValueStore` posts it as `didChangeExternallyNotification`, with the reason under
/// `NSUbiquitousKeyValueStoreChangeReasonKey` and the keys under
/// `NSUbiquitousKeyValueStoreChangedKeysKey`.
public struct CloudKeyValueStoreChange: Sendable, Equatable {
    /// Why a cloud key-value store's values changed; the raw values are Apple's constants.
    public enum Reason: Int, Sendable, Equatable {
        /// Another device of the same account changed values (`NSUbiquitousKeyValueStoreServerChange`).
        case serverChange = 0
        /// The first download from the cloud arrived (`NSUbiquitousKeyValueStoreInitialSyncChange`);
        /// values written before it were discarded.
        case initialSyncChange = 1
        /// The cloud refused values: the keys named were over a limit
        /// (`NSUbiquitousKeyValueStoreQuotaViolationChange`).
        case quotaViolationChange = 2
        /// The device was signed into another account, whose values replaced the local ones
        /// (`NSUbiquitousKeyValueStoreAccountChange`).
        case accountChange = 3
    }

    /// Why the values changed.
    public var reason: Reason
    /// The keys concerned (possibly none, when the store does not say).
    public var changedKeys: [String]

    /// A change notice with its reason and the keys concerned.
    public init(reason: Reason, changedKeys: [String]) {
        self.reason = reason
        self.changedKeys = changedKeys
    }
}
