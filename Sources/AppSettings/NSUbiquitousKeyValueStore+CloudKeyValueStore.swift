// Apple platforms only: iCloud's key-value store as a `CloudKeyValueStore`. The stand-ins in
// IntegrationTests/AppleBranches let the Apple-branch check compile this file on Linux.
#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation
    #if !canImport(Darwin)
        import AppleStandIns
    #endif

    /// iCloud's key-value store carries synced settings between a user's devices:
    ///
    /// ```swift
    /// try MySettings.shared.startSyncing(with: NSUbiquitousKeyValueStore.default)
    /// ```
    ///
    /// Its `object(forKey:)`, `set(_:forKey:)`, `removeObject(forKey:)` and `synchronize()` are the
    /// protocol's; its change notice is `didChangeExternallyNotification`.
    extension NSUbiquitousKeyValueStore: CloudKeyValueStore {
        /// Calls `observer` with each `didChangeExternallyNotification` of this store, on the
        /// thread that posts it, until the token is passed to ``removeChangeObserver(_:)``.
        public func addChangeObserver(
            _ observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void
        ) -> any NSObjectProtocol {
            NotificationCenter.default.addObserver(
                forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification,
                object: self,
                queue: nil
            ) { notification in
                observer(CloudKeyValueStoreChange(userInfo: notification.userInfo))
            }
        }

        /// Stops the calls of the observer that `token` was returned for.
        public func removeChangeObserver(_ token: any NSObjectProtocol) {
            NotificationCenter.default.removeObserver(token)
        }

        /// The account, from `FileManager.ubiquityIdentityToken` (Apple: "You can use the token in
        /// this property [...] to detect when the user logs in or out of iCloud and to detect
        /// changes to the active iCloud account"), told apart by the token's `isEqual(_:)`
        /// (``UbiquityIdentities``). Without a token, ``CloudKeyValueStoreAccount/unknown``: the
        /// token is the "iCloud Drive Documents identity", `nil` too when documents do not sync while
        /// the key-value store may, so `nil` is not taken for signed out; account changes are then
        /// known from notices.
        public var account: CloudKeyValueStoreAccount {
            guard let token = FileManager.default.ubiquityIdentityToken,
                let identifier = UbiquityIdentities.identifier(of: token)
            else { return .unknown }
            return .signedIn(identifier)
        }
    }

    extension CloudKeyValueStoreChange {
        /// The change a `didChangeExternallyNotification` describes: its reason (a server change
        /// when it gives none Apple documents) and its changed keys (none when it gives none).
        init(userInfo: [AnyHashable: Any]?) {
            let reason: Reason =
                switch userInfo?[NSUbiquitousKeyValueStoreChangeReasonKey] as? Int {
                case NSUbiquitousKeyValueStoreInitialSyncChange?: .initialSyncChange
                case NSUbiquitousKeyValueStoreQuotaViolationChange?: .quotaViolationChange
                case NSUbiquitousKeyValueStoreAccountChange?: .accountChange
                default: .serverChange
                }
            self.init(
                reason: reason,
                changedKeys: userInfo?[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] ?? [])
        }
    }
#endif
