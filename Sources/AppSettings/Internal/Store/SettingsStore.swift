import Foundation

/// What a `UserDefaults` key holds, as the store found it (the bytes of a settings set, or
/// something other code wrote there).
enum PreferencesValue: @unchecked Sendable {
    /// Bytes, as a settings set is stored.
    case data(Data)
    /// Something else, written by other code; its type's name for messages. Never overwritten
    /// without a backup.
    case other(Any, typeName: String)
}

/// Where the bytes came from.
enum StoredSource {
    case userDefaults
    /// The atomically written copy, used when the `UserDefaults` domain lost the key.
    case recoveryCopy
}

/// Reads and writes one settings key of one `UserDefaults`: the data path below the settings
/// object.
///
/// What differs per platform is in ``PreferencesDomain``, one file per platform: on Apple
/// platforms the preferences daemon writes atomically and coordinates processes, so the domain
/// is `UserDefaults` itself; on Linux, swift-corelibs-foundation does neither, and the domain
/// adds a lock file per domain and a recovery copy per key (see `PreferencesDomain+Linux.swift`).
struct SettingsStore: @unchecked Sendable {
    let userDefaults: UserDefaults
    let key: String
    let domain: PreferencesDomain

    init(userDefaults: UserDefaults, key: String) {
        self.userDefaults = userDefaults
        self.key = key
        domain = PreferencesDomain(userDefaults)
    }

    /// The store of an object still initializing.
    static let placeholder = SettingsStore(userDefaults: .standard, key: "")

    /// The largest settings archive the library writes: what the platform's preferences accept
    /// for a whole domain, less room for the domain's other keys.
    static let maximumByteCount: Int = {
        #if os(tvOS) || os(watchOS)
            // tvOS warns at 512 KiB of defaults and terminates the app at 1 MiB for the whole
            // domain (UserDefaults.sizeLimitExceededNotification); watchOS is treated alike.
            512 * 1024
        #else
            // Apple's preferences refuse a domain of 4 MiB or more and log from 3 MiB; Linux gets
            // the same limit, so a set that fits here fits there too.
            3 * 1024 * 1024
        #endif
    }()

    /// The key an unreadable stored value is moved to before it is replaced.
    func backupKey(date: Date = Date()) -> String {
        let stamp = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return "\(key).unreadable-\(stamp)"
    }

    /// Reads what is stored, re-reading the domain from disk first when `refresh` is set.
    func read(refresh: Bool) throws -> (object: PreferencesValue, source: StoredSource)? {
        try domain.withLock(exclusive: false, key: key) { try readHoldingLock(refresh: refresh) }
    }

    private func readHoldingLock(refresh: Bool) throws -> (object: PreferencesValue, source: StoredSource)? {
        if refresh { domain.refresh() }
        if let object = domain.value(forKey: key) { return (object, .userDefaults) }
        if let data = try domain.readRecoveryCopy(forKey: key) { return (.data(data), .recoveryCopy) }
        return nil
    }

    /// Whether this store holds exactly `data` right now: how a writer finds the other live
    /// objects of the same suite and key on every platform, without asking `UserDefaults` for a
    /// suite name it does not make public.
    func holds(_ data: Data) -> Bool {
        guard case .data(let stored)? = domain.value(forKey: key) else { return false }
        return stored == data
    }

    /// What a writer decided from what is stored now: the bytes to write, what to keep under a
    /// backup key first (stored bytes nobody could use), and anything else it wants back.
    struct Write<Decision> {
        var data: Data
        /// The archive's `$writeID`: how this process knows its own writes when it sees them.
        var writeID: Int64
        var backup: PreferencesValue?
        var decision: Decision
    }

    /// Under the domain's exclusive lock, so that no other process writes in between: re-reads
    /// what is stored from disk, lets `decide` make the bytes to write from it, then writes them
    /// and flushes. When a backup is asked for, it is first kept under ``backupKey(date:)``;
    /// that key is returned.
    func write<Decision>(
        _ decide: (PreferencesValue?) throws -> Write<Decision>
    ) throws -> (backupKey: String?, decision: Decision) {
        try domain.withLock(exclusive: true, key: key) {
            let write = try decide(try readHoldingLock(refresh: true)?.object)
            let backupKey = try writeHoldingLock(write.data, writeID: write.writeID, backingUp: write.backup)
            return (backupKey, write.decision)
        }
    }

    private func writeHoldingLock(_ data: Data, writeID: Int64, backingUp backup: PreferencesValue?) throws -> String? {
        var backupKey: String?
        if let backup {
            let newKey = self.backupKey()
            switch backup {
            case .data(let bytes): domain.setData(bytes, forKey: newKey)
            case .other(let value, _): domain.setObject(value, forKey: newKey)
            }
            backupKey = newKey
        }
        StoreWatcher.recordOwnWrite(writeID)
        try domain.writeFlushingRecoveryCopy(data, forKey: key) {
            domain.setData(data, forKey: key)
            guard domain.synchronize() else {
                throw AppSettingsError.storeFailed(key: key, reason: "UserDefaults could not write its file")
            }
        }
        StoreWatcher.announceWrite(to: self)
        return backupKey
    }

    /// Removes the key (and its recovery copy) and flushes.
    func remove() throws {
        try domain.withLock(exclusive: true, key: key) {
            try domain.removeRecoveryCopy(forKey: key)
            domain.removeObject(forKey: key)
            guard domain.synchronize() else {
                throw AppSettingsError.storeFailed(key: key, reason: "UserDefaults could not write its file")
            }
        }
    }
}
