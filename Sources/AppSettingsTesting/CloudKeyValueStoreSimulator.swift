import AppSettings
import Dispatch
import Foundation

/// An iCloud key-value server with accounts and devices, as strict as Apple's
/// `NSUbiquitousKeyValueStore`, for tests and platforms without iCloud: each device is a
/// ``CloudKeyValueStore``, and nothing travels until you say so. (It is in `AppSettingsTesting`,
/// which links Swift Testing, so an app target such as one with SwiftUI previews does not link it.)
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
///   ``CloudKeyValueStoreChange/Reason/accountChange`` at the new account's first download. With
///   ``Options/uploadsLagAccountChanges`` the unsent writes still reach the account they were
///   written in, later; never the new one.
/// - Notices "can include" the reason and the keys (`NSUbiquitousKeyValueStoreChangeReasonKey`):
///   ``Options/omitsChangedKeys`` leaves the keys out. They arrive as ``Options/noticeDelivery``
///   says: on the thread that moved the data, on another thread, from inside the device's
///   `synchronize()`, or only when ``deliverNotices(to:)`` is called.
/// - Apple's limits (`NSUbiquitousKeyValueStoreQuotaViolationChange`: "no more than 1024 keys",
///   "1 megabyte" for all values, "1 megabyte" for one value): a write over a limit, or not a
///   property list, is refused at upload, the device's local copy set back to the account's value,
///   and the device told ``CloudKeyValueStoreChange/Reason/quotaViolationChange``.
/// - A key over 64 bytes in UTF-8 (`NSUbiquitousKeyValueStore`: "The maximum length for key
///   strings is 64 bytes using UTF-8 encoding"): Apple's store raises `NSInvalidArgumentException`
///   ("key '…' is too long", as reported by apps that hit it); the simulator ignores the write or
///   removal and records it in ``runtimeErrors``.
/// - A write made inside the notice of the initial sync is recorded in ``misuses``
///   (`NSUbiquitousKeyValueStoreInitialSyncChange`: "Schedule the write operations after a delay
///   to give the system time to download the data"); ``Options/silentFirstDownload`` leaves that
///   notice, and the account change's, out altogether.
/// - Time is simulated: work the library schedules (its checks of the store after `startSyncing`,
///   a save or an account change) runs when ``advanceTime(by:)`` reaches it, and a device's sign-in
///   or sign-out tells the library at once, as `NSUbiquityIdentityDidChange` does ("When the user
///   logs in or out of iCloud or changes accounts, the system posts an
///   `NSUbiquityIdentityDidChange` notification"); ``enterForeground(_:)`` tells it the app
///   returned to the foreground.
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
        /// Whether an account's first download posts no notice at all, not even when it discarded
        /// writes or replaced another account's values (Apple documents when the notice is posted,
        /// not that it always is).
        public var silentFirstDownload: Bool
        /// Whether a device's uploads can lag an account change: the writes it had not uploaded
        /// when it signed into another account still reach the account they were written in, at
        /// its next uploads, instead of being dropped at once. Never the new account: Apple,
        /// `NSUbiquitousKeyValueStoreAccountChange`, "the system removes any previous iCloud data
        /// and replaces it with data from the new account" (which does not say when an upload
        /// under way ends).
        public var uploadsLagAccountChanges: Bool

        /// Options; the defaults are Apple's conflict rule, notices delivered at once, with keys,
        /// a first download that tells of discarded writes and of another account, and unsent
        /// writes dropped at an account change.
        public init(
            conflictResolution: ConflictResolution = .newestWriteTime,
            noticeDelivery: NoticeDelivery = .immediately,
            omitsChangedKeys: Bool = false,
            silentFirstDownload: Bool = false,
            uploadsLagAccountChanges: Bool = false
        ) {
            self.conflictResolution = conflictResolution
            self.noticeDelivery = noticeDelivery
            self.omitsChangedKeys = omitsChangedKeys
            self.silentFirstDownload = silentFirstDownload
            self.uploadsLagAccountChanges = uploadsLagAccountChanges
        }

        /// The strictest model: the server's own clock decides conflicts (the last upload wins,
        /// whatever the writing devices' clocks said), notices come only when asked for and name no
        /// key, first downloads are silent, and uploads lag account changes.
        public static var strict: Options {
            Options(
                conflictResolution: .lastUploadWins, noticeDelivery: .manual, omitsChangedKeys: true,
                silentFirstDownload: true, uploadsLagAccountChanges: true)
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
        /// The account whose data the local copy holds; `nil` once another account's sign-in
        /// emptied it, until that account's first download.
        var dataAccount: Int?
        var values: [String: Data] = [:]
        var outbox: [Write] = []
        /// Writes of accounts the device left, still to be uploaded to them
        /// (``Options/uploadsLagAccountChanges``).
        var lagging: [(account: Int, write: Write)] = []
        var hasDownloaded = false
        var discardedWrite = false
        var online = true
        var clockOffset = 0
        var notices: [CloudKeyValueStoreChange] = []
        var observers: [(token: ObserverToken, observer: @Sendable (CloudKeyValueStoreChange) -> Void)] = []
        var eventObservers: [(token: ObserverToken, observer: @Sendable (CloudEnvironmentEvent) -> Void)] = []
    }

    /// Work a device's user scheduled (`CloudEnvironment.schedule(after:_:)`), in simulated time.
    struct ScheduledWork {
        var time: Double
        var order: Int
        var work: @Sendable () -> Void
    }

    struct State {
        var accounts: [[String: Entry]] = [[:]]
        var devices: [Int: DeviceState] = [:]
        var nextDevice = 0
        var clock = 0
        var runtimeErrors: [String] = []
        var misuses: [String] = []
        /// Simulated seconds since the simulator was made.
        var now: Double = 0
        var scheduled: [ScheduledWork] = []
        var nextOrder = 0
        /// Raised by every write, applied upload and changing download.
        var activity = 0
    }

    let state = Protected(State())
    let options: Options
    let noticeQueues = Protected<[Int: DispatchQueue]>([:])
    /// Values read, by their bytes (see `propertyList(from:)`).
    let decoded = Protected<[Data: Any]>([:])
    let noticeGroup = DispatchGroup()

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
        return entries.compactMapValues { $0.data.flatMap(propertyList(from:)) }
    }

    /// What went wrong as it would raise an exception on Apple's store (a key too long).
    public var runtimeErrors: [String] { state.withLock { $0.runtimeErrors } }

    /// What a device's user did that Apple's documentation says not to do: a write made inside
    /// the notice of the initial sync (`NSUbiquitousKeyValueStoreInitialSyncChange`: "Schedule the
    /// write operations after a delay to give the system time to download the data").
    public var misuses: [String] { state.withLock { $0.misuses } }

    /// Signs `device` into a new, empty account (see ``signIn(_:to:)``); it is told at its next
    /// download.
    public func changeAccount(of device: any CloudKeyValueStore) {
        let account = makeAccount()
        signIn(device, to: account)
    }

    /// Signs `device` into `account`. The same account as its local copy's: its unsent writes
    /// are uploaded later. Another: its local copy and unsent writes are dropped now (with
    /// ``Options/uploadsLagAccountChanges``, the writes are uploaded later to the account they
    /// were written in), and the account's first download tells it
    /// ``CloudKeyValueStoreChange/Reason/accountChange``.
    public func signIn(_ device: any CloudKeyValueStore, to account: Account) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier] else { return }
            current.account = account.index
            if current.dataAccount != account.index {
                if options.uploadsLagAccountChanges, current.hasDownloaded, let left = current.dataAccount {
                    current.lagging += current.outbox.map { (left, $0) }
                }
                current.values = [:]
                current.outbox = []
                current.hasDownloaded = false
                current.discardedWrite = false
                // The local copy now holds no account's data (the new account's first download has
                // not come): signing back into the earlier account replaces it again, so a write
                // made meanwhile never reaches that account.
                current.dataAccount = nil
            }
            state.devices[device.identifier] = current
        }
        identityChanged(on: device)
    }

    /// Signs `device` out: its local copy stays, its writes wait there, nothing travels.
    public func signOut(_ device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        state.withLock { $0.devices[device.identifier]?.account = nil }
        identityChanged(on: device)
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
}
