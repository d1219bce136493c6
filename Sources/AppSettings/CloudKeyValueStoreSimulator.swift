import Foundation

/// An iCloud key-value server with accounts and devices, for tests, SwiftUI previews and
/// platforms without iCloud: each device is a ``CloudKeyValueStore`` that behaves as
/// `NSUbiquitousKeyValueStore` does, and nothing travels until you say so.
///
/// ```swift
/// let cloud = CloudKeyValueStoreSimulator()
/// let phone = MySettings(userDefaults: phoneSuite)
/// let laptop = MySettings(userDefaults: laptopSuite)
/// try phone.startSyncing(with: cloud.makeDevice())
/// try laptop.startSyncing(with: cloud.makeDevice())
/// cloud.deliverChanges()                 // each device's initial sync
/// phone.soundLevel = 0.3
/// try phone.synchronizeToUserDefaults()  // stored, and sent to the phone's store
/// cloud.deliverChanges()                 // uploaded; the laptop is told and takes it
/// ```
///
/// What it models, after Apple's documentation of `NSUbiquitousKeyValueStore`:
/// - A device reads and writes its local copy at once; ``deliverChanges()`` uploads what devices
///   wrote, in the order they wrote it, then tells every other device of the same account which
///   keys changed (``CloudKeyValueStoreChange/Reason/serverChange``), and goes on until what
///   devices write in response has travelled too. A device is never told of its own writes.
/// - A device's first delivery is its initial sync: what it wrote before is discarded, its local
///   copy becomes the account's values, and it is told
///   (``CloudKeyValueStoreChange/Reason/initialSyncChange``, naming every key the account holds).
/// - Apple's limits: 1,048,576 bytes for all keys and values (a value counts as its binary
///   property list, a key as its UTF-8 bytes), 1,048,576 bytes for one value, 1,024 keys, keys of
///   at most 64 bytes in UTF-8. A write over a limit is refused at upload: the account keeps its
///   value, the writer's local copy is set back to it, and the writer is told
///   (``CloudKeyValueStoreChange/Reason/quotaViolationChange``, naming the refused keys). Values
///   that are not property lists are refused alike.
/// - ``changeAccount(of:)`` signs a device into a new, empty account: its local copy and
///   unsent writes are dropped, and it is told at once
///   (``CloudKeyValueStoreChange/Reason/accountChange``).
///
/// Values travel as binary property lists, as they do to iCloud: a `Float` comes back a
/// `Double`. Change notices are delivered on the thread that calls ``deliverChanges()`` or
/// ``changeAccount(of:)``, after the simulator's lock is released. Every member may be called
/// from any thread.
public final class CloudKeyValueStoreSimulator: Sendable {
    /// A device signed into one of the simulator's accounts: a ``CloudKeyValueStore``.
    public final class Device: CloudKeyValueStore, Sendable {
        let identifier: Int
        let simulator: CloudKeyValueStoreSimulator

        init(identifier: Int, simulator: CloudKeyValueStoreSimulator) {
            self.identifier = identifier
            self.simulator = simulator
        }

        /// The value in this device's local copy, as a property-list value.
        public func object(forKey key: String) -> Any? {
            simulator.state.withLock { $0.devices[identifier]?.values[key] }.flatMap(Self.propertyList(from:))
        }

        /// Writes to this device's local copy; uploaded by the next
        /// ``CloudKeyValueStoreSimulator/deliverChanges()``. `nil` removes the key.
        public func set(_ value: Any?, forKey key: String) {
            guard let value else {
                removeObject(forKey: key)
                return
            }
            let encoded = Self.encoded(value)
            simulator.state.withLock { state in
                state.devices[identifier]?.values[key] = encoded.data
                state.writes.append(Write(device: identifier, key: key, value: .some(encoded)))
            }
        }

        /// Removes the key from this device's local copy; the removal is uploaded by the next
        /// ``CloudKeyValueStoreSimulator/deliverChanges()``.
        public func removeObject(forKey key: String) {
            simulator.state.withLock { state in
                state.devices[identifier]?.values[key] = nil
                state.writes.append(Write(device: identifier, key: key, value: nil))
            }
        }

        /// Always `true`: the local copy is in memory; values travel on
        /// ``CloudKeyValueStoreSimulator/deliverChanges()``.
        public func synchronize() -> Bool { true }

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

        /// A value as it travels: its binary property list, or what makes it no property list.
        static func encoded(_ value: Any) -> EncodedValue {
            guard CloudLimits.byteCount(of: value) != nil else {
                return EncodedValue(data: Data(), isPropertyList: false)
            }
            do {
                return EncodedValue(
                    data: try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0),
                    isPropertyList: true)
            } catch {
                return EncodedValue(data: Data(), isPropertyList: false)
            }
        }

        static func propertyList(from data: Data) -> Any? {
            // The simulator wrote these bytes itself from a valid property list: they read back.
            try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
    }

    /// A value written by a device, in binary property-list form.
    struct EncodedValue {
        var data: Data
        var isPropertyList: Bool
    }

    struct Write {
        var device: Int
        var key: String
        /// `nil`: a removal.
        var value: EncodedValue?
    }

    struct DeviceState {
        var account: Int
        var values: [String: Data] = [:]
        var hasSynced = false
        var observers: [(token: ObserverToken, observer: @Sendable (CloudKeyValueStoreChange) -> Void)] = []
    }

    struct State {
        /// The values of each account, by key.
        var accounts: [[String: Data]] = [[:]]
        var devices: [Int: DeviceState] = [:]
        var nextDevice = 0
        /// What devices wrote since the last delivery, in order.
        var writes: [Write] = []
    }

    let state = Protected(State())

    /// A simulator with one empty account and no devices.
    public init() {}

    /// A new device signed into the simulator's first account; it has not synced yet.
    public func makeDevice() -> Device {
        let identifier = state.withLock { state in
            defer { state.nextDevice += 1 }
            state.devices[state.nextDevice] = DeviceState(account: 0)
            return state.nextDevice
        }
        return Device(identifier: identifier, simulator: self)
    }

    /// What the account `device` (one of this simulator's devices) is signed into holds, by key;
    /// empty for any other store.
    public func serverValues(for device: any CloudKeyValueStore) -> [String: Any] {
        guard let device = ownDevice(device) else { return [:] }
        let values = state.withLock { state in state.devices[device.identifier].map { state.accounts[$0.account] } }
        return (values ?? [:]).compactMapValues(Device.propertyList(from:))
    }

    /// Signs `device` (one of this simulator's devices; any other store is left alone) into a
    /// new, empty account and tells it so at once.
    public func changeAccount(of device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        let notice = state.withLock { state -> Notice? in
            guard var deviceState = state.devices[device.identifier] else { return nil }
            state.accounts.append([:])
            let changedKeys = deviceState.values.keys.sorted()
            deviceState.account = state.accounts.count - 1
            deviceState.values = [:]
            deviceState.hasSynced = true
            state.devices[device.identifier] = deviceState
            state.writes.removeAll { $0.device == device.identifier }
            return Notice(
                observers: deviceState.observers.map(\.observer),
                change: CloudKeyValueStoreChange(reason: .accountChange, changedKeys: changedKeys))
        }
        notice?.deliver()
    }

    /// Uploads what devices wrote since the last delivery, in the order they wrote it, then tells
    /// each device what changed for it: refused writes first, then its initial sync or the other
    /// devices' changes. What devices write while they are told (a settings object sending what it
    /// stored before its initial sync) travels in the same call, round after round, until nothing
    /// is left to upload (at most 64 rounds; anything after that waits for the next call).
    public func deliverChanges() {
        for _ in 0..<64 {
            deliverRound()
            if state.withLock({ $0.writes.isEmpty }) { return }
        }
    }

    /// One upload of every queued write, and the notices it causes.
    private func deliverRound() {
        let notices = state.withLock { state -> [Notice] in
            var refused: [Int: [String]] = [:]
            let writes = state.writes
            state.writes = []
            for write in writes {
                guard let device = state.devices[write.device], device.hasSynced else {
                    continue  // written before the initial sync: discarded, as iCloud does
                }
                var values = state.accounts[device.account]
                values[write.key] = write.value?.data
                if Self.refusal(of: write, in: values) != nil {
                    refused[write.device, default: []].append(write.key)
                    state.devices[write.device]?.values[write.key] = state.accounts[device.account][write.key]
                } else {
                    state.accounts[device.account] = values
                }
            }
            var notices: [Notice] = []
            for identifier in state.devices.keys.sorted() {
                guard var device = state.devices[identifier] else { continue }
                let observers = device.observers.map(\.observer)
                if let keys = refused[identifier] {
                    notices.append(
                        Notice(
                            observers: observers,
                            change: CloudKeyValueStoreChange(reason: .quotaViolationChange, changedKeys: keys)))
                }
                let server = state.accounts[device.account]
                let changedKeys = Set(server.keys).union(device.values.keys).filter { device.values[$0] != server[$0] }
                if !device.hasSynced {
                    device.hasSynced = true
                    notices.append(
                        Notice(
                            observers: observers,
                            change: CloudKeyValueStoreChange(
                                reason: .initialSyncChange, changedKeys: server.keys.sorted())))
                } else if !changedKeys.isEmpty {
                    notices.append(
                        Notice(
                            observers: observers,
                            change: CloudKeyValueStoreChange(reason: .serverChange, changedKeys: changedKeys.sorted())))
                }
                device.values = server
                state.devices[identifier] = device
            }
            return notices
        }
        for notice in notices { notice.deliver() }
    }

    /// `store` as one of this simulator's devices, or `nil`.
    private func ownDevice(_ store: any CloudKeyValueStore) -> Device? {
        guard let device = store as? Device, device.simulator === self else { return nil }
        return device
    }

    /// Why the account would refuse `write`, given what it would then hold, or `nil`.
    private static func refusal(of write: Write, in values: [String: Data]) -> String? {
        guard let value = write.value else { return nil }  // a removal is always accepted
        guard value.isPropertyList else { return "not a property-list value" }
        if let refusal = CloudLimits.refusal(key: write.key, byteCount: value.data.count) { return refusal }
        if values.count > CloudLimits.maximumKeyCount { return "more than \(CloudLimits.maximumKeyCount) keys" }
        let total = values.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
        if total > CloudLimits.maximumTotalByteCount {
            return "more than \(CloudLimits.maximumTotalByteCount) bytes in all"
        }
        return nil
    }

    /// One change notice for one device's observers, delivered outside the lock.
    struct Notice {
        var observers: [@Sendable (CloudKeyValueStoreChange) -> Void]
        var change: CloudKeyValueStoreChange

        func deliver() {
            for observer in observers { observer(change) }
        }
    }

    /// The token of an observer of a simulated device.
    final class ObserverToken: NSObject, @unchecked Sendable {}
}
