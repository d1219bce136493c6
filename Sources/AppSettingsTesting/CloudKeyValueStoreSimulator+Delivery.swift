import AppSettings
import Dispatch
import Foundation

// How data and notices travel between the simulator's devices and its accounts, one step at a time.

extension CloudKeyValueStoreSimulator {
    /// Uploads up to `count` of `device`'s oldest unsent writes (none when it is offline; only
    /// writes of accounts it left, ``Options/uploadsLagAccountChanges``, when it is signed out;
    /// those of its account are discarded when the account's first download has not happened).
    public func upload(from device: any CloudKeyValueStore, count: Int = .max) {
        guard let device = ownDevice(device) else { return }
        state.withLock { state in
            guard var current = state.devices[device.identifier], current.online else { return }
            defer { state.devices[device.identifier] = current }
            var count = max(0, count)
            // Writes of an account the device left go to that account, never to another, and no
            // notice tells of a refusal: the device is no longer signed into it.
            let lagging = current.lagging.prefix(count)
            current.lagging.removeFirst(lagging.count)
            count -= lagging.count
            for (account, write) in lagging { _ = apply(write, to: account, in: &state) }
            guard let account = current.account else { return }
            guard current.hasDownloaded else {
                if !current.outbox.isEmpty { current.discardedWrite = true }
                current.outbox = []
                return
            }
            var refused: [String] = []
            let writes = current.outbox.prefix(count)
            current.outbox.removeFirst(writes.count)
            for write in writes where !apply(write, to: account, in: &state) {
                refused.append(write.key)
                if !current.outbox.contains(where: { $0.key == write.key }) {
                    current.values[write.key] = state.accounts[account][write.key]?.data
                }
            }
            if !refused.isEmpty {
                current.notices.append(notice(.quotaViolationChange, keys: refused))
            }
        }
        noticesArrived(for: device)
    }

    /// Applies one uploaded write to `account`; `false` when the account refused it. A write that
    /// loses to a newer one (``ConflictResolution/newestWriteTime``) is accepted and changes nothing.
    private func apply(_ write: Write, to account: Int, in state: inout State) -> Bool {
        var values = state.accounts[account]
        if let existing = values[write.key], options.conflictResolution == .newestWriteTime, existing.time > write.time
        {
            return true  // the server keeps the newer write; the device downloads it later
        }
        values[write.key] = Entry(data: write.value?.data, time: write.time)
        guard Self.refusal(of: write, in: values) == nil else { return false }
        state.accounts[account] = values
        state.activity += 1
        return true
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
                state.activity += 1
                current.dataAccount = account
                if options.silentFirstDownload {
                    // No notice: the library finds the values at its next check.
                } else if changedAccount {
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
                state.activity += 1
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
            call(observers, with: change, on: device.identifier)
        }
    }

    /// The task-local device whose initial-sync notice is being delivered on this thread.
    @TaskLocal static var deliveringInitialSync: Int?

    /// Calls `observers` with `change`; inside a notice of the initial sync, a write to the device
    /// is a misuse (see ``misuses``).
    func call(
        _ observers: [@Sendable (CloudKeyValueStoreChange) -> Void], with change: CloudKeyValueStoreChange,
        on identifier: Int
    ) {
        guard change.reason == .initialSyncChange else {
            for observer in observers { observer(change) }
            return
        }
        Self.$deliveringInitialSync.withValue(identifier) {
            for observer in observers { observer(change) }
        }
    }

    /// Waits until every notice delivered ``NoticeDelivery/onAnotherThread`` was handled.
    public func waitForNotices() {
        noticeGroup.wait()
    }

    /// Moves everything: every online device uploads its writes and downloads its account's
    /// values, and every notice is delivered, round after round until nothing is left to move
    /// (at most 64 rounds); then simulated time moves on from one piece of work that devices'
    /// users scheduled (the library's checks of the store) to the next, each followed by moving
    /// everything again, until an hour passes in which no device wrote and nothing moved (or
    /// nothing is scheduled). ``now`` tells how much simulated time it took.
    public func deliverChanges() {
        moveEverything()
        var lastActivity = (count: state.withLock { $0.activity }, time: now)
        for _ in 0..<10_000 {
            guard let time = state.withLock({ $0.scheduled.map(\.time).min() }), time - lastActivity.time <= 3600
            else { return }
            advanceTime(by: time - now)
            moveEverything()
            let activity = state.withLock { $0.activity }
            if activity != lastActivity.count { lastActivity = (activity, now) }
        }
    }

    /// Moves data and notices until nothing is left to move (at most 64 rounds).
    func moveEverything() {
        for _ in 0..<64 {
            let devices = state.withLock { $0.devices.keys.sorted() }.map { Device(identifier: $0, simulator: self) }
            for device in devices { upload(from: device) }
            for device in devices { download(to: device) }
            for device in devices { deliverNotices(to: device) }
            waitForNotices()
            let moving = state.withLock { state in
                state.devices.values.contains { device in
                    guard device.online else { return false }
                    if !device.lagging.isEmpty { return true }
                    guard let account = device.account else { return false }
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

    func write(_ value: EncodedValue?, forKey key: String, by identifier: Int) {
        state.withLock { state in
            guard key.utf8.count <= CloudLimits.maximumKeyByteCount else {
                state.runtimeErrors.append("NSUbiquitousKeyValueStore: key '\(key)' is too long")
                return
            }
            if Self.deliveringInitialSync == identifier {
                state.misuses.append("a write of '\(key)' inside the notice of the initial sync")
            }
            guard var device = state.devices[identifier] else { return }
            state.activity += 1
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
                for (observers, change) in notices { self.call(observers, with: change, on: device.identifier) }
            }
        case .insideSynchronize, .manual:
            break
        }
    }

    /// `store` as one of this simulator's devices, or `nil`.
    func ownDevice(_ store: any CloudKeyValueStore) -> Device? {
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
}
