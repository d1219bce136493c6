import Foundation

/// What a `UserDefaults` key holds, as the store found it (the bytes of a settings set, or
/// something other code wrote there).
enum PreferencesValue: @unchecked Sendable {
    /// Bytes, as a settings set is stored.
    case data(Data)
    /// Something else, written by other code; its type's name for messages. Never overwritten
    /// without a backup.
    case other(Any, typeName: String)

    /// The value as `UserDefaults` holds it.
    var object: Any {
        switch self {
        case .data(let bytes): bytes
        case .other(let object, _): object
        }
    }
}

/// Where the bytes came from.
enum StoredSource: Equatable {
    case userDefaults
    /// The atomically written copy, used when the `UserDefaults` domain lost the key.
    case recoveryCopy
    /// The copy, used because the domain's bytes under the key could not be read (a power loss
    /// can leave the domain's file torn there).
    case recoveryCopyOverUnreadable
    /// The copy, used because the domain holds an older set (another writer put it back: see
    /// ``SettingsStore/read(refresh:)``); the next save writes it back.
    case recoveryCopyOverOlder
    /// The domain's set, though the copy differs and which of the two is newer cannot be told:
    /// `reason` says why, for ``AppSettingsError/ambiguousStoredSet(key:reason:)``.
    case userDefaultsUndecided(reason: String)
}

/// Reads and writes one settings key of one `UserDefaults`: the data path below the settings
/// object, and the only way to it (nothing outside `Store/` sees the domain).
///
/// What differs per place is behind ``StorageDomain`` (see there); its optional capabilities are
/// taken once, here, so that no read or write casts.
struct SettingsStore: @unchecked Sendable {
    /// The store this key is in: what it is, and the `UserDefaults` it is bound to.
    let location: AppSettingsStore
    let key: String
    private let domain: any StorageDomain
    /// The domain's recovery copy (Linux), or `nil`: then a write writes the domain alone.
    let recoveryCopies: (any RecoveryCopying)?
    /// The domain's file, where the library writes it (Linux), or `nil`.
    let domainFile: (any DomainFileWriting)?
    /// How the domain tells a set it cannot read now, or `nil`: it holds exactly what it reads.
    let availability: (any AvailabilityReporting)?
    /// The `UserDefaults` domain of a store kept there; `nil` for an in-memory store, which no
    /// other process can write and no watcher needs to watch, and for a refused suite.
    let preferencesDomain: PreferencesDomain?

    init(store: AppSettingsStore, key: String) {
        location = store
        self.key = key
        let domain = store.makeDomain()
        self.domain = domain
        recoveryCopies = domain.asRecoveryCopying
        domainFile = domain.asDomainFileWriting
        availability = domain.asAvailabilityReporting
        preferencesDomain = domain as? PreferencesDomain
    }

    /// The key `key` of the store `userDefaults` is (``AppSettingsStore/userDefaults(_:)``).
    init(userDefaults: UserDefaults, key: String) {
        self.init(store: .userDefaults(userDefaults), key: key)
    }

    /// The store of an object still initializing.
    static let placeholder = SettingsStore(store: .standard, key: "")

    /// The most a domain may hold, every key counted: just under what the platform's preferences
    /// accept (less a margin, since the count is of values, not of the file).
    static let maximumDomainByteCount: Int = {
        #if os(tvOS) || os(watchOS) || APPLE_STAND_INS_TVOS
            // tvOS terminates an app whose domain reaches 1 MiB (it warns from 512 KiB:
            // UserDefaults.sizeLimitExceededNotification); watchOS is treated alike.
            1024 * 1024 - 64 * 1024
        #else
            // Apple's preferences refuse a domain of 4 MiB or more; Linux gets the same limit, so
            // a domain that fits here fits there too.
            4 * 1024 * 1024 - 64 * 1024
        #endif
    }()

    /// How many backups of unreadable sets (`<key>.unreadable-<ms>`) a key keeps: the newest.
    static let maximumBackupCount = 3

    /// The recovery copy alone (Linux; `nil` elsewhere): for a load that could not read the
    /// domain's bytes, which a power loss can leave torn under the key.
    func readRecoveryCopy() throws -> Data? {
        guard let recoveryCopies else { return nil }
        return try domain.withLock(exclusive: false, key: key) { try recoveryCopies.readRecoveryCopy(forKey: key) }
    }

    /// Reads what is stored, re-reading the domain from disk first when `refresh` is set.
    ///
    /// Where the domain keeps a recovery copy (Linux), the newer of the two sets: another writer can
    /// put an older set back into the domain (corelibs' `synchronize()` writes its whole cached
    /// domain), never into the copy. The copy's set is used when its generation is higher or the
    /// domain's has none; when nothing orders two different sets, the domain's is used
    /// (``StoredSource/userDefaultsUndecided(reason:)``).
    func read(refresh: Bool) throws -> (object: PreferencesValue, source: StoredSource)? {
        try domain.withLock(exclusive: false, key: key) {
            let found = try readHoldingLock(refresh: refresh)
            // Nothing found in a damaged domain file: reported, not taken for nothing stored.
            if found == nil, let damage = domainFile?.damage(forKey: key) {
                throw AppSettingsError.readFailed(key: key, reason: damage)
            }
            return found.map { ($0.object, $0.source) }
        }
    }

    /// What a read found, and the generation of the copy not used when the two differ.
    private typealias Found = (object: PreferencesValue, source: StoredSource, otherGeneration: Int64?)

    private func readHoldingLock(refresh: Bool) throws -> Found? {
        if refresh { domain.refresh() }
        if let object = domain.value(forKey: key) { return newer(of: object) }
        if let data = try recoveryCopies?.readRecoveryCopy(forKey: key) { return (.data(data), .recoveryCopy, nil) }
        // Nothing read, but a set may be there all the same: never taken for nothing stored, so a
        // write cannot replace a set it could not read.
        if let reason = try availability?.unavailability(forKey: key) {
            throw AppSettingsError.storeUnavailable(key: key, reason: reason)
        }
        return nil
    }

    /// The domain's `object`, or the recovery copy when it holds a newer set (see ``read(refresh:)``).
    private func newer(of object: PreferencesValue) -> Found {
        guard let recoveryCopies, case .data(let bytes) = object else { return (object, .userDefaults, nil) }
        var copyPath: String { recoveryCopies.recoveryCopyURL(forKey: key).path }
        let copy: Data
        do {
            guard let found = try recoveryCopies.readRecoveryCopy(forKey: key), found != bytes else {
                return (object, .userDefaults, nil)
            }
            copy = found
        } catch {
            let reason =
                "its recovery copy \(copyPath) cannot be read (\(error)), so whether the domain's set is the "
                + "newest cannot be told"
            return (object, .userDefaultsUndecided(reason: reason), nil)
        }
        let domainGeneration: Int64?
        do {
            domainGeneration = try SettingsCodec.generation(of: bytes)
        } catch {
            // The domain's bytes are no set: a load reads the copy over them, a save keeps them.
            return (object, .userDefaults, try? SettingsCodec.generation(of: copy))
        }
        let copyGeneration: Int64?
        do {
            copyGeneration = try SettingsCodec.generation(of: copy)
        } catch {
            let reason =
                "its recovery copy \(copyPath) differs from the domain's set and is not a settings set (\(error))"
            return (object, .userDefaultsUndecided(reason: reason), nil)
        }
        switch (domainGeneration, copyGeneration) {
        case (let inDomain?, let inCopy?) where inDomain > inCopy:
            return (object, .userDefaults, inCopy)
        case (let inDomain, let inCopy?) where inDomain ?? 0 < inCopy:
            Log.notice(
                "\(key): its UserDefaults domain holds an older set (\(Self.describe(inDomain))) than its recovery "
                    + "copy \(copyPath) (\(Self.describe(inCopy))): another writer put it back; the copy's set is "
                    + "used, and the next save writes it back")
            return (.data(copy), .recoveryCopyOverOlder, inDomain)
        default:
            let reason =
                "the set in its UserDefaults domain (\(Self.describe(domainGeneration))) differs from its recovery copy "
                + "\(copyPath) (\(Self.describe(copyGeneration))), and which is newer cannot be told; the domain's "
                + "set is used, and the next save writes over both"
            return (object, .userDefaultsUndecided(reason: reason), copyGeneration)
        }
    }

    private static func describe(_ generation: Int64?) -> String {
        generation.map { "generation \($0)" } ?? "saved before generations"
    }

    /// The generation a write carries: one above the newest set the domain or its copy holds.
    private static func generation(after found: Found?) -> Int64 {
        var newest = max(found?.otherGeneration ?? 0, 0)
        if case .data(let bytes)? = found?.object, let generation = try? SettingsCodec.generation(of: bytes) {
            newest = max(newest, generation)
        }
        // A hostile archive's maximum is kept (then the two copies are equal, and undecided).
        return newest == .max ? .max : newest + 1
    }

    /// The bytes the key holds right now, as this process last read the domain (no lock, no
    /// re-read); `nil` when it holds nothing, or something other than bytes.
    func storedData() -> Data? {
        guard case .data(let stored)? = domain.value(forKey: key) else { return nil }
        return stored
    }

    /// Whether this store holds exactly `data` right now: how a writer finds the other live
    /// objects of the same suite and key on every platform, without asking `UserDefaults` for a
    /// suite name it does not make public.
    func holds(_ data: Data) -> Bool { storedData() == data }

    /// What the app or a per-key library stored under `key` (a legacy key of a setting), registered
    /// defaults left out, as this process last read the domain.
    func storedObject(forLegacyKey key: String) -> Any? { domain.storedObject(forKey: key) }

    /// What the domain stores under `keys` (registered defaults left out), with the bytes of the
    /// set (`nil`: none, or not bytes), read together under the domain's lock: a replica's keys
    /// and the set they were written with.
    func look(atKeys keys: [String], refresh: Bool) throws -> (set: Data?, objects: [String: Any]) {
        try domain.withLock(exclusive: false, key: key) {
            if refresh { domain.refresh() }
            let set = try readHoldingLock(refresh: false)
            guard case .data(let bytes)? = set?.object else { return (nil, objects(forKeys: keys)) }
            return (bytes, objects(forKeys: keys))
        }
    }

    /// What the domain stores under `keys`, registered defaults left out, as last read.
    private func objects(forKeys keys: [String]) -> [String: Any] {
        var found: [String: Any] = [:]
        for key in keys { found[key] = domain.storedObject(forKey: key) }
        return found
    }

    /// What a writer reads under the domain's exclusive lock, fresh from disk: the set, and other
    /// keys of the domain (a replica's).
    struct LockedRead {
        /// What the key holds, or `nil`: the newer set, as ``SettingsStore/read(refresh:)`` finds it.
        var stored: PreferencesValue?
        /// The `$generation` the set written carries: one above the newest set stored.
        let generation: Int64
        fileprivate let store: SettingsStore

        /// What the domain stores under `keys` (registered defaults left out), under the same lock.
        func objects(forKeys keys: [String]) -> [String: Any] { store.objects(forKeys: keys) }
    }

    /// What a writer decided from what is stored now: the bytes to write (`nil`: nothing), what to
    /// keep under a backup key first (stored bytes nobody could use), what goes beside them, and
    /// anything else it wants back.
    struct Write<Decision> {
        var data: Data?
        /// The archive's `$writeID`: how this process knows its own writes when it sees them.
        var writeID: Int64
        var backup: PreferencesValue?
        var decision: Decision
        /// Values written beside the set under keys of their own, in the same write (a replica's),
        /// by key.
        var entries: [String: Any] = [:]
        /// Called under the lock once the write is known to fit its domain, just before it is
        /// made (or, with nothing to write, at the end of the decision): a replica's own writes.
        var beforeWriting: [() -> Void] = []
    }

    /// Under the domain's exclusive lock: re-reads what is stored from disk (as ``read(refresh:)``
    /// finds it), lets `decide` make the bytes to write (``LockedRead``), then writes and flushes
    /// them, first keeping a backup under ``SettingsKey/backupKey(at:)`` when asked (returned).
    func write<Decision>(
        _ decide: (LockedRead) throws -> Write<Decision>
    ) throws -> (backupKey: String?, decision: Decision) {
        try HeldLocks.holding {
            try domain.withLock(exclusive: true, key: key) {
                let found = try readHoldingLock(refresh: true)
                if case .userDefaultsUndecided(let reason)? = found?.source { Log.notice("\(key): \(reason)") }
                let write = try decide(
                    LockedRead(stored: found?.object, generation: Self.generation(after: found), store: self))
                guard let data = write.data else {
                    for action in write.beforeWriting { action() }
                    return (nil, write.decision)
                }
                let backupKey = try writeHoldingLock(data, writeID: write.writeID, as: write)
                return (backupKey, write.decision)
            }
        }
    }

    private func writeHoldingLock<Decision>(_ data: Data, writeID: Int64, as write: Write<Decision>) throws -> String? {
        let backup = write.backup
        // What the domain holds under this key (put back if the write fails), besides it, and this
        // key's backups, oldest first.
        var previous: Any?
        var otherByteCount = 0
        var backups: [(key: String, stamp: Int64, byteCount: Int)] = []
        domain.forEachStoredValue { storedKey, value in
            guard storedKey != key else {
                previous = value
                return
            }
            // The entries written beside the set are counted as they will be.
            guard write.entries[storedKey] == nil else { return }
            let byteCount = storedKey.utf8.count + Self.estimatedByteCount(of: value)
            otherByteCount += byteCount
            if let stamp = SettingsKey(storedKey: key).backupStamp(of: storedKey) {
                backups.append((storedKey, stamp, byteCount))
            }
        }
        backups.sort { $0.stamp < $1.stamp }
        // A new backup pushes out the oldest beyond the newest few.
        let expired = backup == nil ? [] : backups.dropLast(Self.maximumBackupCount - 1)
        let newBackupKey = backup.map { _ in SettingsKey(storedKey: key).backupKey() }
        var byteCount = otherByteCount + key.utf8.count + data.count
        byteCount += write.entries.reduce(0) { $0 + $1.key.utf8.count + Self.estimatedByteCount(of: $1.value) }
        byteCount -= expired.reduce(0) { $0 + $1.byteCount }
        if let backup, let newBackupKey {
            byteCount += newBackupKey.utf8.count + Self.estimatedByteCount(of: backup.object)
        }
        guard byteCount <= Self.maximumDomainByteCount else {
            throw AppSettingsError.tooLarge(key: key, byteCount: byteCount, limit: Self.maximumDomainByteCount)
        }

        for action in write.beforeWriting { action() }
        if let backup, let newBackupKey {
            for old in expired { domain.removeObject(forKey: old.key) }
            switch backup {
            case .data(let bytes): domain.setData(bytes, forKey: newBackupKey)
            case .other(let value, _): domain.setObject(value, forKey: newBackupKey)
            }
        }
        StoreWatcher.recordOwnWrite(writeID)
        func writeDomain() throws {
            domain.setData(data, forKey: key)
            for (entryKey, value) in write.entries { domain.setObject(value, forKey: entryKey) }
            try flush()
        }
        if let recoveryCopies {
            try recoveryCopies.writeFlushingRecoveryCopy(data, forKey: key, replacing: previous, writeDomain)
        } else {
            try writeDomain()
        }
        StoreWatcher.announceWrite(to: self)
        return newBackupKey
    }

    /// About what `value` adds to a domain's property list: its bytes, strings' UTF-8, containers'
    /// elements, and a few bytes for anything else.
    static func estimatedByteCount(of value: Any) -> Int {
        switch value {
        case let data as NSData: return data.length
        case let string as String: return string.utf8.count
        case let array as [Any]: return array.reduce(8) { $0 + estimatedByteCount(of: $1) }
        case let dictionary as [String: Any]:
            return dictionary.reduce(8) { $0 + $1.key.utf8.count + estimatedByteCount(of: $1.value) }
        default: return 9
        }
    }

    /// Removes the key (and its recovery copy) and `otherKeys` (the replicas' entries), and flushes.
    func remove(alsoRemoving otherKeys: [String] = []) throws {
        try HeldLocks.holding {
            try domain.withLock(exclusive: true, key: key) { try removeHoldingLock(alsoRemoving: otherKeys) }
        }
    }

    /// Takes the set away whether or not it can be read, keeping its bytes under a backup key
    /// (returned) as a save keeps an unreadable set's, in one write under the exclusive lock.
    /// Throws `readFailed` when nothing is stored (nor in its recovery copy), `storeFailed` when
    /// the domain cannot be written.
    func removeKeepingBackup(alsoRemoving otherKeys: (PreferencesValue) -> [String] = { _ in [] }) throws -> String {
        try HeldLocks.holding {
            try domain.withLock(exclusive: true, key: key) { () throws -> String in
                domain.refresh()
                let backupKey = SettingsKey(storedKey: key).backupKey()
                let removed: PreferencesValue
                if let object = domain.storedObject(forKey: key) {
                    removed =
                        (object as? Data).map(PreferencesValue.data)
                        ?? .other(object, typeName: foundTypeName(of: object))
                    domain.setObject(object, forKey: backupKey)
                } else if let bytes = try recoveryCopies?.readRecoveryCopy(forKey: key) {
                    removed = .data(bytes)
                    domain.setData(bytes, forKey: backupKey)
                } else {
                    throw AppSettingsError.readFailed(key: key, reason: "nothing is stored under it")
                }
                try removeHoldingLock(alsoRemoving: otherKeys(removed))
                return backupKey
            }
        }
    }

    private func removeHoldingLock(alsoRemoving otherKeys: [String]) throws {
        try recoveryCopies?.removeRecoveryCopy(forKey: key)
        domain.removeObject(forKey: key)
        for otherKey in otherKeys { domain.removeObject(forKey: otherKey) }
        try flush()
    }

    /// ``StorageDomain/synchronize()``, its failure thrown.
    private func flush() throws {
        guard domain.synchronize() else {
            throw AppSettingsError.storeFailed(key: key, reason: domain.synchronizeFailure)
        }
    }
}
