import AppSettings
import Foundation

// A device of the simulator: what an app or a test hands to `startSyncing(with:)`.

extension CloudKeyValueStoreSimulator {
    /// A device of the simulator: a ``CloudKeyValueStore``.
    public final class Device: CloudKeyValueStore, Sendable {
        let identifier: Int
        let simulator: CloudKeyValueStoreSimulator

        init(identifier: Int, simulator: CloudKeyValueStoreSimulator) {
            self.identifier = identifier
            self.simulator = simulator
        }

        /// The value in this device's local copy, as a property-list value.
        public func object(forKey key: String) -> Any? {
            simulator.state.withLock { $0.devices[identifier]?.values[key] }.flatMap(simulator.propertyList(from:))
        }

        /// Writes to this device's local copy; uploaded later. `nil` removes the key.
        public func set(_ value: Any?, forKey key: String) {
            simulator.write(value.map(Self.encoded), forKey: key, by: identifier)
        }

        /// Removes the key from this device's local copy; the removal is uploaded later.
        public func removeObject(forKey key: String) {
            simulator.write(nil, forKey: key, by: identifier)
        }

        /// Delivers the notices waiting for this device when notices arrive
        /// ``NoticeDelivery/insideSynchronize``; `true`.
        public func synchronize() -> Bool {
            if simulator.options.noticeDelivery == .insideSynchronize { simulator.deliverNotices(to: self) }
            return true
        }

        /// Calls `observer` with this device's change notices until the token is removed.
        public func addChangeObserver(
            _ observer: @escaping @Sendable (CloudKeyValueStoreChange) -> Void
        ) -> any NSObjectProtocol {
            let token = ObserverToken()
            simulator.state.withLock { $0.devices[identifier]?.observers.append((token, observer)) }
            return token
        }

        /// Stops the calls of the observer that `token` was returned for.
        public func removeChangeObserver(_ token: any NSObjectProtocol) {
            simulator.state.withLock { state in
                state.devices[identifier]?.observers.removeAll { $0.token === token }
            }
        }

        /// The account this device is signed into.
        public var account: CloudKeyValueStoreAccount {
            simulator.state.withLock { $0.devices[identifier]?.account }.map { .signedIn("account-\($0)") }
                ?? .signedOut
        }

        /// A value as it travels: its binary property list, or what makes it no property list.
        static func encoded(_ value: Any) -> EncodedValue {
            guard CloudLimits.byteCount(of: value) != nil,
                let data = try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
            else { return EncodedValue(data: Data(), isPropertyList: false) }
            return EncodedValue(data: data, isPropertyList: true)
        }
    }

    /// The value of `data`, a binary property list the simulator wrote, decoded once while it is
    /// read again and again: swift-corelibs-foundation hands each decoded `Data` over byte by byte
    /// (0.2 s a megabyte; iCloud takes values of up to 1 MB). The values are immutable.
    func propertyList(from data: Data) -> Any? {
        if let value = decoded.withLock({ $0[data] }) { return value }
        // The simulator wrote these bytes itself from a valid property list: they read back.
        guard let value = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
            return nil
        }
        decoded.withLock { decoded in
            if decoded.count >= 32 { decoded.removeAll() }  // a bound on what is kept, not a policy
            decoded[data] = value
        }
        return value
    }

    /// The token of an observer of a simulated device.
    final class ObserverToken: NSObject, @unchecked Sendable {}
}
