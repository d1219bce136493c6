import Foundation

/// One synced setting as a pull or a push sees it.
struct SyncedSetting {
    /// The setting's stored name.
    var name: String
    /// Its cloud key, `"<userDefaultsKey>.<name>"`.
    var key: String
    /// What the set stores for it, in cloud form (`nil` for `nil`).
    var stored: StoredValue?
    /// Its developer default, in cloud form.
    var developerDefault: StoredValue?
    /// Its developer default as a setting decodes it.
    var developerDefaultStored: StoredValue
}

/// The decisions of one pull, in the order they are made (the methods below, in order); the
/// object then takes `taken` into a scratch copy and stores it, sending what `needsSending` says.
struct CloudPull {
    var record: CloudRecord
    /// The values to take, as a setting decodes them.
    var taken: [String: StoredValue] = [:]
    /// Whether the store lacks a value of this device's that is newer than what it holds.
    var needsSending = false
    /// Whether the store is signed into another account than the one the record belongs to.
    var switchedAccount = false
    var conflicts: [String] = []
    var failures: [AppSettingsError] = []

    init(record: CloudRecord) {
        self.record = record
    }

    /// Another account: nothing of the old one is kept or sent (Apple,
    /// `NSUbiquitousKeyValueStoreAccountChange`: "the system removes any previous iCloud data and
    /// replaces it with data from the new account"); every synced setting of the old account
    /// (all of them, or the ``CloudRecord/foreign`` ones a save after `stopSyncing()` marked) takes
    /// its developer default, then the new account's value where it has one.
    mutating func takeAccount(
        _ account: CloudKeyValueStoreAccount, notice: CloudKeyValueStoreChange?, settings: [SyncedSetting]
    ) {
        let names = Set(settings.map(\.name))
        switch CloudSyncMutation.isActive(.accountIgnored) ? nil : account {
        case .signedIn(let identifier) where record.account == nil:
            record.account = identifier
        case .signedIn(let identifier) where record.account != identifier:
            record = CloudRecord(account: identifier, foreign: names)
        case .unknown where notice?.reason == .accountChange:
            record = CloudRecord(account: record.account, foreign: names)
        default:
            break
        }
        guard !record.foreign.isEmpty else { return }
        switchedAccount = true
        for setting in settings where record.foreign.contains(setting.name) {
            taken[setting.name] = setting.developerDefaultStored
        }
        record.foreign = []
    }

    /// A refused value is not sent again until it changes. Apple's notice "can include" the keys:
    /// without them, every value of this device's the store does not hold counts as refused.
    mutating func recordRefusals(in notice: CloudKeyValueStoreChange?, settings: [SyncedSetting], sync: CloudSync) {
        guard let notice, notice.reason == .quotaViolationChange else { return }
        let keys = Set(notice.changedKeys)
        for setting in settings {
            guard let stamp = record.stamps[setting.name], keys.isEmpty || keys.contains(setting.key) else { continue }
            guard sync.envelope(forKey: setting.key)??.stamp != stamp else { continue }
            record.refuse(setting.name, stamp: stamp)
            failures.append(
                .cloudValueRefused(
                    key: setting.key, setting: setting.name,
                    reason: "iCloud refused it: the app's key-value storage is over its quota"))
        }
    }

    /// A setting this version no longer syncs (removed, or made local) loses its stamp; its cloud
    /// key is removed, once, by a version at least as new as the one that stored the set. Returns
    /// the keys to remove.
    mutating func forgetSettingsNoLongerSynced(
        _ settings: [SyncedSetting], removesKeys: Bool, cloudKey: (String) -> String
    ) -> [String] {
        let syncedNames = Set(settings.map(\.name))
        var removed: [String] = []
        for name in record.stamps.keys.sorted() where !syncedNames.contains(name) {
            record.take(name, stamp: nil)
            if removesKeys { removed.append(cloudKey(name)) }
        }
        return removed
    }

    /// A value stored without a version (a setting that became synced, a value migrated from a
    /// legacy key, a set of the first format) and not the developer default is this device's own:
    /// version 0, below every change made with syncing.
    mutating func stampValuesWithoutVersion(_ settings: [SyncedSetting]) {
        guard !switchedAccount else { return }
        for setting in settings where record.stamps[setting.name] == nil && setting.stored != setting.developerDefault {
            record.stamps[setting.name] = CloudStamp(counter: 0, tag: setting.stored.tag)
        }
    }

    /// Each setting against the store: the store's value is taken where it outranks this
    /// device's (`CloudRecord.isOutranked`); this device's is to be sent where the store holds an
    /// older one or none, unless it was refused.
    mutating func compare(_ settings: [SyncedSetting], with sync: CloudSync) {
        for setting in settings {
            let mine = record.stamps[setting.name]
            let sendable = mine != nil && record.refused[setting.name] != mine
            guard let found = sync.envelope(forKey: setting.key) else {
                needsSending = needsSending || sendable
                continue
            }
            guard let theirs = found else {
                failures.append(
                    .cloudValueUnreadable(key: setting.key, setting: setting.name, reason: "it is not a property list"))
                continue
            }
            if theirs.stamp == mine { continue }
            let outranked =
                CloudSyncMutation.isActive(.takesOlderValues)
                || (CloudSyncMutation.isActive(.refusedOutranks)
                    ? mine.map { theirs.stamp > $0 } ?? true : record.isOutranked(setting.name, by: theirs.stamp))
            guard outranked else {
                needsSending = needsSending || sendable
                continue
            }
            if let mine, mine.counter == theirs.stamp.counter { conflicts.append(setting.name) }
            record.take(setting.name, stamp: theirs.stamp)
            taken[setting.name] = theirs.value?.fromCloudForm ?? .null
        }
    }
}
