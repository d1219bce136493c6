import Dispatch
import Foundation

/// An iCloud key-value server with accounts and devices, as strict as Apple's
/// `NSUbiquitousKeyValueStore`, for tests, SwiftUI previews and platforms without iCloud: each
/// device is a ``CloudKeyValueStore``, and nothing travels until you say so.
///
/// ```swift
/// let cloud = CloudKeyValueStoreSimulator()
/// let phone = MySettings(userDefaults: phoneSuite)
/// let laptop = MySettings(userDefaults: laptopSuite)
/// try phone.startSyncing(with: cloud.makeDevice())
/// try laptop.startSyncing(with: cloud.makeDevice())
/// phone.soundLevel = 0.3
/// try phone.synchronizeToUserDefaults()  // stored, and written to the phone's local copy
/// cloud.deliverChanges()                 // uploaded, downloaded; the laptop is told and takes it
/// ```
///
/// ``deliverChanges()`` moves everything; ``upload(from:count:)``, ``download(to:count:)``,
/// ``announceEarly(to:)``, ``deliverNotices(to:)``, ``setOnline(_:for:)``, ``signOut(_:)`` and
/// ``signIn(_:to:)`` move one device's data one step at a time, in any order, as Apple's store may.
/// Each rule, with the line of Apple's documentation it follows:
/// - A device reads and writes a local copy at once; its writes wait in order until uploaded,
///   and other devices' values until downloaded, each device on its own (the iCloud design
///   guide: changes are uploaded "at a frequency determined by the system", several per minute
///   at most; a device can be offline: ``setOnline(_:for:)``).
/// - The first download of an account is silent, unless a write was discarded because it came
///   before it (`NSUbiquitousKeyValueStoreInitialSyncChange`: "If you try to write a key and value
///   to the iCloud data store while this initial download is in progress, the system generates
///   the `didChangeExternallyNotification` notification with this key"): such writes are
///   discarded and the device is told ``CloudKeyValueStoreChange/Reason/initialSyncChange``.
/// - Later downloads tell the device which keys changed
///   (``CloudKeyValueStoreChange/Reason/serverChange``; "This type of change occurs when another
///   instance of your app changes the value on a different device"); a key the device wrote and
///   has not uploaded keeps its local value until then.
/// - Conflicts are decided by the server: by default the write made last by the writing device's
///   clock wins ("iCloud automatically handles conflicts by delivering you the most up-to-date
///   value for any keys based on timestamp"; clocks may differ, ``setClockOffset(_:for:)``), so an
///   upload that arrives later can lose; or, with ``ConflictResolution/lastUploadWins``, the last
///   upload.
/// - Accounts: ``makeAccount(holding:)`` makes one that already holds data; ``signOut(_:)`` keeps
///   the local copy and its writes on the device ("If you write to the key-value store object when
///   the user is not signed into an iCloud account, the data is stored locally until the next
///   synchronization opportunity"); ``signIn(_:to:)`` into the same account uploads them later,
///   into another drops the local copy and unsent writes at once ("the system removes any previous
///   iCloud data and replaces it with data from the new account") and tells the device
///   ``CloudKeyValueStoreChange/Reason/accountChange`` at the new account's first download.
/// - Notices "can include" the reason and the keys (`NSUbiquitousKeyValueStoreChangeReasonKey`):
///   ``Options/omitsChangedKeys`` leaves the keys out. They arrive as ``Options/noticeDelivery``
///   says: on the thread that moved the data, on another thread, from inside the device's
///   `synchronize()`, or only when ``deliverNotices(to:)`` is called.
/// - Apple's limits (`NSUbiquitousKeyValueStoreQuotaViolationChange`: "no more than 1024 keys",
///   "1 megabyte" for all values, "1 megabyte" for one value): a write over a limit, or not a
///   property list, is refused at upload, the device's local copy set back to the account's value,
///   and the device told ``CloudKeyValueStoreChange/Reason/quotaViolationChange``.
/// - A key over 64 bytes in UTF-8: Apple's store raises `NSInvalidArgumentException` ("key '…' is
///   too long", as reported by apps that hit it); the simulator ignores the write and records it
///   in ``runtimeErrors``.
///
/// Values travel as binary property lists, as they do to iCloud: a `Float` comes back a
/// `Double`. Every member may be called from any thread; observers are called with no lock held.
public final class CloudKeyValueStoreSimulator: Sendable {
    /// An account of the simulator.
    public struct Account: Hashable, Sendable {
        let index: Int
    }

    /// How the server decides between two writes of one key.
    public enum ConflictResolution: Sendable {
        /// The write made last by its device's clock wins, whenever it is uploaded (Apple's).
        case newestWriteTime
        /// The last upload wins.
        case lastUploadWins
    }

    /// Where change notices are delivered.
    public enum NoticeDelivery: Sendable {
        /// On the thread that uploaded or downloaded, when the step is done.
        case immediately
        /// On another thread, one at a time per device; ``waitForNotices()`` waits for them.
        case onAnotherThread
        /// From inside the device's next `synchronize()`, or ``deliverNotices(to:)``.
        case insideSynchronize
        /// Only when ``deliverNotices(to:)`` or ``deliverChanges()`` is called.
        case manual
    }

    /// How strict the simulator is beyond Apple's documented rules, which always hold.
    public struct Options: Sendable {
        /// How the server decides between two writes of one key.
        public var conflictResolution: ConflictResolution
        /// Where change notices are delivered.
        public var noticeDelivery: NoticeDelivery
        /// Whether notices leave out the keys that changed.
        public var omitsChangedKeys: Bool

        /// Options; the defaults are Apple's conflict rule, notices delivered at once, with keys.
        public init(
            conflictResolution: ConflictResolution = .newestWriteTime,
            noticeDelivery: NoticeDelivery = .immediately,
            omitsChangedKeys: Bool = false
        ) {
            self.conflictResolution = conflictResolution
            self.noticeDelivery = noticeDelivery
            self.omitsChangedKeys = omitsChangedKeys
        }
    }

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
            simulator.state.withLock { $0.devices[identifier]?.values[key] }.flatMap(Self.propertyList(from:))
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

        static func propertyList(from data: Data) -> Any? {
            // The simulator wrote these bytes itself from a valid property list: they read back.
            try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
    }

    struct EncodedValue {
        var data: Data
        var isPropertyList: Bool
    }

    struct Write {
        var key: String
        /// `nil`: a removal.
        var value: EncodedValue?
        /// The writing device's clock.
        var time: Int
    }

    /// A key on the server: its value (`nil`: removed) and the time of the write that won.
    struct Entry {
        var data: Data?
        var time: Int
    }

    struct DeviceState {
        var account: Int?
        /// The account whose data the local copy holds.
        var dataAccount: Int?
        var values: [String: Data] = [:]
        var outbox: [Write] = []
        var hasDownloaded = false
        var discardedWrite = false
        var online = true
        var clockOffset = 0
        var notices: [CloudKeyValueStoreChange] = []
        var observers: [(token: ObserverToken, observer: @Sendable (CloudKeyValueStoreChange) -> Void)] = []
    }

    struct State {
        var accounts: [[String: Entry]] = [[:]]
        var devices: [Int: DeviceState] = [:]
        var nextDevice = 0
        var clock = 0
        var runtimeErrors: [String] = []
    }

    let state = Protected(State())
    let options: Options
    private let noticeQueues = Protected<[Int: DispatchQueue]>([:])
    private let noticeGroup = DispatchGroup()

    /// A simulator with one empty account and no devices.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// The account devices are signed into by ``makeDevice()``.
    public var firstAccount: Account { Account(index: 0) }

    /// A new account holding `values` (property-list values by key), as if other devices had
    /// written them before.
    public func makeAccount(holding values: [String: Any] = [:]) -> Account {
        state.withLock { state in
            state.clock += 1
            let time = state.clock
            state.accounts.append(values.mapValues { Entry(data: Device.encoded($0).data, time: time) })
            return Account(index: state.accounts.count - 1)
        }
    }

    /// A new device signed into the first account; it has not downloaded anything yet.
    public func makeDevice() -> Device {
        makeDevice(signedInto: firstAccount)
    }

    /// A new device signed into `account`, or signed out for `nil`; it has not downloaded anything.
    public func makeDevice(signedInto account: Account?) -> Device {
        let identifier = state.withLock { state in
            defer { state.nextDevice += 1 }
            state.devices[state.nextDevice] = DeviceState(account: account?.index, dataAccount: account?.index)
            return state.nextDevice
        }
        return Device(identifier: identifier, simulator: self)
    }

    /// What the account `device` (one of this simulator's devices) is signed into holds, by key;
    /// empty for any other store or a signed-out device.
    public func serverValues(for device: any CloudKeyValueStore) -> [String: Any] {
        guard let device = ownDevice(device),
            let account = state.withLock({ $0.devices[device.identifier]?.account })
        else { return [:] }
        return serverValues(of: Account(index: account))
    }

    /// What `account` holds, by key.
    public func serverValues(of account: Account) -> [String: Any] {
        let entries = state.withLock { $0.accounts[account.index] }
        return entries.compactMapValues { $0.data.flatMap(Device.propertyList(from:)) }
    }

    /// What went wrong as it would raise an exception on Apple's store (a key too long).
    public var runtimeErrors: [String] { state.withLock { $0.runtimeErrors } }

    /// Signs `device` into a new, empty account (see ``signIn(_:to:)``); it is told at its next
    /// download.
    public func changeAccount(of device: any CloudKeyValueStore) {
        let account = makeAccount()
        signIn(device, to: account)
    }

    /// Signs `device` into `account`. The same account as its local copy's: its unsent writes
    /// are uploaded later. Another: its local copy and unsent writes are dropped now, and the
    /// account's first download tells it ``CloudKeyValueStoreChange/Reason/accountChange``.
    public func signIn(_ device: any CloudKeyValueStore, to account: Account) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier] else { return }
            current.account = account.index
            if current.dataAccount != account.index {
                current.values = [:]
                current.outbox = []
                current.hasDownloaded = false
                current.discardedWrite = false
            }
            state.devices[device.identifier] = current
        }
    }

    /// Signs `device` out: its local copy stays, its writes wait there, nothing travels.
    public func signOut(_ device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        state.withLock { $0.devices[device.identifier]?.account = nil }
    }

    /// Takes `device` offline (nothing is uploaded or downloaded) or back online.
    public func setOnline(_ online: Bool, for device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        state.withLock { $0.devices[device.identifier]?.online = online }
    }

    /// Sets how far `device`'s clock is ahead (in writes; negative: behind) of the others'.
    public func setClockOffset(_ offset: Int, for device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        state.withLock { $0.devices[device.identifier]?.clockOffset = offset }
    }

    /// Uploads up to `count` of `device`'s oldest unsent writes (none when it is offline or signed
    /// out; all are discarded when the account's first download has not happened).
    public func upload(from device: any CloudKeyValueStore, count: Int = .max) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier], current.online, let account = current.account
            else { return }
            guard current.hasDownloaded else {
                if !current.outbox.isEmpty { current.discardedWrite = true }
                current.outbox = []
                state.devices[device.identifier] = current
                return
            }
            var refused: [String] = []
            let writes = current.outbox.prefix(max(0, count))
            current.outbox.removeFirst(writes.count)
            for write in writes {
                var values = state.accounts[account]
                if let existing = values[write.key], options.conflictResolution == .newestWriteTime,
                    existing.time > write.time
                {
                    continue  // the server keeps the newer write; the device downloads it later
                }
                values[write.key] = Entry(data: write.value?.data, time: write.time)
                if Self.refusal(of: write, in: values) != nil {
                    refused.append(write.key)
                    if !current.outbox.contains(where: { $0.key == write.key }) {
                        current.values[write.key] = state.accounts[account][write.key]?.data
                    }
                } else {
                    state.accounts[account] = values
                }
            }
            if !refused.isEmpty {
                current.notices.append(notice(.quotaViolationChange, keys: refused))
            }
            state.devices[device.identifier] = current
        }
        noticesArrived(for: device)
    }

    /// Downloads to `device` up to `count` of the keys its account changed (all of them at the
    /// account's first download), and queues the notice that tells it.
    public func download(to device: any CloudKeyValueStore, count: Int = .max) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier], current.online, let account = current.account
            else { return }
            let server = state.accounts[account].compactMapValues(\.data)
            if !current.hasDownloaded {
                let changedAccount = current.dataAccount != account
                if !current.outbox.isEmpty { current.discardedWrite = true }
                current.values = server
                current.outbox = []
                current.hasDownloaded = true
                current.dataAccount = account
                if changedAccount {
                    current.notices.append(notice(.accountChange, keys: server.keys.sorted()))
                } else if current.discardedWrite {
                    current.notices.append(notice(.initialSyncChange, keys: server.keys.sorted()))
                }
                current.discardedWrite = false
            } else {
                let unsent = Set(current.outbox.map(\.key))
                let changed = Set(server.keys).union(current.values.keys)
                    .filter { current.values[$0] != server[$0] && !unsent.contains($0) }.sorted().prefix(max(0, count))
                guard !changed.isEmpty else { return }
                for key in changed { current.values[key] = server[key] }
                current.notices.append(notice(.serverChange, keys: Array(changed)))
            }
            state.devices[device.identifier] = current
        }
        noticesArrived(for: device)
    }

    /// Queues a notice of the keys `device`'s account changed before their data is downloaded.
    public func announceEarly(to device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier], let account = current.account,
                current.hasDownloaded
            else { return }
            let server = state.accounts[account].compactMapValues(\.data)
            let changed = Set(server.keys).union(current.values.keys).filter { current.values[$0] != server[$0] }
            guard !changed.isEmpty else { return }
            current.notices.append(notice(.serverChange, keys: changed.sorted()))
            state.devices[device.identifier] = current
        }
        noticesArrived(for: device)
    }

    /// Delivers the notices waiting for `device`, on this thread.
    public func deliverNotices(to device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        for (observers, change) in takeNotices(of: device.identifier) {
            for observer in observers { observer(change) }
        }
    }

    /// Waits until every notice delivered ``NoticeDelivery/onAnotherThread`` was handled.
    public func waitForNotices() {
        noticeGroup.wait()
    }

    /// Moves everything: every online device uploads its writes and downloads its account's
    /// values, and every notice is delivered, round after round until nothing is left to move
    /// (at most 64 rounds).
    public func deliverChanges() {
        for _ in 0..<64 {
            let devices = state.withLock { $0.devices.keys.sorted() }.map { Device(identifier: $0, simulator: self) }
            for device in devices { upload(from: device) }
            for device in devices { download(to: device) }
            for device in devices { deliverNotices(to: device) }
            waitForNotices()
            let moving = state.withLock { state in
                state.devices.values.contains { device in
                    guard device.online, let account = device.account else { return false }
                    let server = state.accounts[account].compactMapValues(\.data)
                    return !device.outbox.isEmpty || !device.notices.isEmpty || !device.hasDownloaded
                        || device.values != server
                }
            }
            if !moving { return }
        }
    }

    // MARK: - Inside

    private func notice(_ reason: CloudKeyValueStoreChange.Reason, keys: [String]) -> CloudKeyValueStoreChange {
        CloudKeyValueStoreChange(reason: reason, changedKeys: options.omitsChangedKeys ? [] : keys)
    }

    fileprivate func write(_ value: EncodedValue?, forKey key: String, by identifier: Int) {
        state.withLock { state in
            guard key.utf8.count <= CloudLimits.maximumKeyByteCount else {
                state.runtimeErrors.append("NSUbiquitousKeyValueStore: key '\(key)' is too long")
                return
            }
            guard var device = state.devices[identifier] else { return }
            state.clock += 1
            device.values[key] = value?.data
            device.outbox.append(Write(key: key, value: value, time: state.clock + device.clockOffset))
            state.devices[identifier] = device
        }
    }

    private func takeNotices(
        of identifier: Int
    ) -> [([@Sendable (CloudKeyValueStoreChange) -> Void], CloudKeyValueStoreChange)] {
        state.withLock { state in
            guard var device = state.devices[identifier] else { return [] }
            defer { state.devices[identifier] = device }
            let notices = device.notices
            device.notices = []
            return notices.map { (device.observers.map(\.observer), $0) }
        }
    }

    /// Delivers what a step queued, as ``Options/noticeDelivery`` says.
    private func noticesArrived(for device: Device) {
        switch options.noticeDelivery {
        case .immediately:
            deliverNotices(to: device)
        case .onAnotherThread:
            let queue = noticeQueues.withLock { queues in
                if let queue = queues[device.identifier] { return queue }
                let queue = DispatchQueue(label: "CloudKeyValueStoreSimulator.device\(device.identifier)")
                queues[device.identifier] = queue
                return queue
            }
            let notices = takeNotices(of: device.identifier)
            guard !notices.isEmpty else { return }
            queue.async(group: noticeGroup) {
                for (observers, change) in notices {
                    for observer in observers { observer(change) }
                }
            }
        case .insideSynchronize, .manual:
            break
        }
    }

    /// `store` as one of this simulator's devices, or `nil`.
    private func ownDevice(_ store: any CloudKeyValueStore) -> Device? {
        guard let device = store as? Device, device.simulator === self else { return nil }
        return device
    }

    /// Why the account would refuse `write`, given what it would then hold, or `nil`.
    private static func refusal(of write: Write, in entries: [String: Entry]) -> String? {
        guard let value = write.value else { return nil }  // a removal is always accepted
        guard value.isPropertyList else { return "not a property-list value" }
        if let refusal = CloudLimits.refusal(key: write.key, byteCount: value.data.count) { return refusal }
        let values = entries.compactMapValues(\.data)
        if values.count > CloudLimits.maximumKeyCount { return "more than \(CloudLimits.maximumKeyCount) keys" }
        let total = values.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
        if total > CloudLimits.maximumTotalByteCount {
            return "more than \(CloudLimits.maximumTotalByteCount) bytes in all"
        }
        return nil
    }

    /// The token of an observer of a simulated device.
    final class ObserverToken: NSObject, @unchecked Sendable {}
}
