import AppSettingsTesting
import Foundation

@testable import AppSettings

extension ScheduleRun {
    /// What each device shows now (what it has seen), what the library sent, what the clouds hold.
    func sample() {
        for device in devices {
            checkSent(by: device)
            if device.syncing, let current = account(of: device) { bind(device, to: current) }
            let current = account(of: device) ?? device.lastAccount
            if current != device.knowledgeAccount {
                device.knowledge = [:]
                device.knowledgeAccount = current
            }
            for setting in 0..<5 {
                let value = device.settings.identity(of: setting)
                guard value.hasPrefix("w"), !value.hasSuffix("!big"), let id = Int(value.dropFirst()) else { continue }
                device.knowledge[setting, default: []].insert(id)
                device.knowledge[setting]?.formUnion(writes[id]?.knowledge ?? [])
            }
            let local = device.settings.local
            if local != "default" && !local.hasPrefix("d\(device.index)-") {
                violations.append("[account] device \(device.index) shows another device's local value \(local)")
            }
        }
        for (index, account) in accounts.enumerated() {
            for (setting, value) in cloudValues(of: account) { checkOrigin(value, setting: setting, in: index) }
        }
    }

    /// `[origin]`: each synced value the library wrote to a store signed into an account was saved
    /// on that account (or, saved where no account was met, is now that account's).
    private func checkSent(by device: Device) {
        let sent = device.counting.sent.withLock { sent in
            defer { sent = [] }
            return sent
        }
        for value in sent {
            guard case .signedIn(let name) = value.account, let account = Int(name.dropFirst("account-".count)),
                let id = writeID(value.identity), let write = writes[id]
            else { continue }
            if write.origin == nil && device.unbound.contains(id) { bind(device, to: account) }
            let message =
                "[origin] device \(device.index) sent \(ScheduleSettings.syncedNames[value.setting]) = "
                + "\(value.identity), saved on account \(origin(of: id)), to account \(account)"
            if writes[id]?.origin != account && !violations.contains(message) { violations.append(message) }
        }
    }

    /// `[origin]`: a value an account's cloud holds was saved on that account.
    private func checkOrigin(_ value: String, setting: Int, in account: Int) {
        guard let id = writeID(value), writes[id]?.origin != account else { return }
        let message =
            "[origin] account \(account): the cloud holds \(ScheduleSettings.syncedNames[setting]) = \(value), "
            + "saved on account \(origin(of: id))"
        if !violations.contains(message) { violations.append(message) }
    }

    /// The write a shown value is (`nil` for the default, an over-quota or an invalid value).
    private func writeID(_ identity: String) -> Int? {
        guard identity.hasPrefix("w"), !identity.hasSuffix("!big") else { return nil }
        return Int(identity.dropFirst())
    }

    private func origin(of id: Int) -> String {
        writes[id]?.origin.map { "\($0)" } ?? "none"
    }

    /// What `account`'s cloud holds, by setting: what each value shows ("raw" for no envelope).
    func cloudValues(of account: CloudKeyValueStoreSimulator.Account) -> [Int: String] {
        var values: [Int: String] = [:]
        for (key, value) in cloud.serverValues(of: account) {
            let name = key.split(separator: ".").last.map(String.init) ?? ""
            guard key.hasPrefix("AppSettings.ScheduleSettings."),
                let setting = ScheduleSettings.syncedNames.firstIndex(of: name)
            else { continue }
            guard let envelope = value as? [String: Any], envelope["$version"] != nil else {
                values[setting] = "raw"
                continue
            }
            values[setting] = ScheduleSettings.identity(ofCloud: envelope["$value"], setting: setting)
        }
        return values
    }

    /// The simulated time the settling may take: the library checks at least every 5 minutes
    /// (`CloudRecheckSchedule`), and `deliverChanges()` stops after an hour with nothing moving.
    static let settlingLimit: Double = 2 * 3600

    /// Everything delivered: devices back online, signed in, syncing, and their changes saved;
    /// then no app call, while iCloud moves everything and simulated time passes until nothing
    /// is left to move or check (at most ``settlingLimit``).
    func settle() {
        for device in devices {
            cloud.setOnline(true, for: device.store)
            if account(of: device) == nil { cloud.signIn(device.store, to: accounts[device.lastAccount ?? 0]) }
            if !device.syncing { startSyncing(device) }
            sample()
        }
        for device in devices { save(device) }
        let start = cloud.now
        cloud.deliverChanges()
        sample()
        if cloud.now - start > Self.settlingLimit {
            violations.append("[converge] the devices took \(Int(cloud.now - start)) simulated seconds to settle")
        }
    }

    func check() {
        if !cloud.runtimeErrors.isEmpty { violations.append("[documented] runtime errors: \(cloud.runtimeErrors)") }
        if !cloud.misuses.isEmpty { violations.append("[documented] misuses: \(cloud.misuses)") }
        for device in devices {
            // A fresh object shows what the live one shows.
            let fresh = ScheduleSettings(userDefaults: device.suite.another())
            for setting in 0..<5 where fresh.identity(of: setting) != device.settings.identity(of: setting) {
                violations.append(
                    "[converge] device \(device.index): a fresh object shows \(ScheduleSettings.syncedNames[setting]) = "
                        + "\(fresh.identity(of: setting)), the live one \(device.settings.identity(of: setting))")
            }
            if fresh.local != device.settings.local {
                violations.append("[converge] device \(device.index): local differs")
            }
        }
        for (accountIndex, account) in accounts.enumerated() {
            let members = devices.filter { self.account(of: $0) == accountIndex }
            let server = cloud.serverValues(of: account)
            for key in server.keys
            where !key.hasPrefix("AppSettings.ScheduleSettings.")
                || ScheduleSettings.syncedNames.allSatisfy({ key != "AppSettings.ScheduleSettings.\($0)" })
            {
                violations.append("[account] account \(accountIndex): the cloud holds \(key), not a synced setting")
            }
            let cloudValues = cloudValues(of: account)
            for setting in 0..<5 {
                let name = ScheduleSettings.syncedNames[setting]
                let cloudValue = cloudValues[setting]
                checkCarried(setting: setting, account: accountIndex, final: cloudValue ?? "default")
                if let cloudValue { checkBelongs(cloudValue, setting: setting, account: accountIndex, to: "the cloud") }
                let shown = members.map { $0.settings.identity(of: setting) }
                for (device, value) in zip(members, shown) {
                    checkBelongs(value, setting: setting, account: accountIndex, to: "device \(device.index)")
                }
                // A device may keep an over-quota value of its own (kept there and reported, never
                // sent) only while no other device synced a value for the setting: while the others
                // show the default or a write the refused one had seen.
                let others = shown.filter { !$0.hasSuffix("!big") }
                for (device, value) in zip(members, shown) where value.hasSuffix("!big") {
                    guard let id = Int(value.dropFirst().dropLast(4)), let refused = writes[id],
                        let agreed = others.first
                    else { continue }
                    let agreedID = Int(agreed.dropFirst())
                    let seen = agreed == "default" || agreedID.map(refused.knowledge.contains) ?? false
                    if !seen {
                        violations.append(
                            "[agree] account \(accountIndex): device \(device.index) keeps its refused \(name) = "
                                + "\(value) over \(agreed), which another device synced")
                    }
                }
                let comparable = others
                if Set(comparable).count > 1 {
                    violations.append("[agree] account \(accountIndex): devices disagree on \(name): \(shown)")
                }
                if let first = comparable.first, first != (cloudValue ?? "default") {
                    violations.append(
                        "[converge] account \(accountIndex): devices show \(name) = \(first), the cloud \(cloudValue ?? "nothing")"
                    )
                }
                if let first = comparable.first { checkNotLost(final: first, setting: setting, account: accountIndex) }
            }
        }
    }

    private func checkBelongs(_ value: String, setting: Int, account: Int, to holder: String) {
        let name = ScheduleSettings.syncedNames[setting]
        if value.hasPrefix("invalid") {
            violations.append("[account] \(holder): \(name) holds \(value)")
            return
        }
        guard value != "default" else { return }
        if value.hasSuffix("!big") {
            if holder == "the cloud" {
                violations.append("[account] account \(account): the cloud holds an over-quota \(name)")
            }
            return
        }
        guard let id = Int(value.dropFirst()), let write = writes[id], write.setting == setting else {
            violations.append("[account] \(holder): \(name) = \(value) was never written")
            return
        }
        if write.origin != account {
            violations.append(
                "[account] account \(account): \(holder) holds \(name) = \(value), saved on account \(origin(of: id))")
        }
    }

    /// `[carried]`: a change not yet saved to an account (unsaved, or saved while its device did not
    /// sync) when its set met another account was saved to that account: the cloud ends with it, or
    /// with a write of that account it had not seen (made on another device meanwhile, or later).
    private func checkCarried(setting: Int, account: Int, final: String) {
        let finalID = writeID(final)
        for (id, write) in writes
        where write.setting == setting && write.carriedTo == account && write.origin == account && write.saved
            && !write.abandoned && !write.value.hasSuffix("!big") && write.value != final
        {
            let replaced = writes.contains { other in
                other.key != id && other.value.setting == setting && other.value.saved && other.value.origin == account
                    && !write.knowledge.contains(other.key)
                    && (other.key == finalID || (final == "default" && other.value.value == "default"))
            }
            if !replaced {
                violations.append(
                    "[carried] account \(account): device \(write.device)'s \(ScheduleSettings.syncedNames[setting]) = "
                        + "\(write.value), not yet saved to an account when its set met this one, was not saved to it "
                        + "(the cloud holds \(final))")
            }
        }
    }

    /// A saved write with no concurrent write on its account is the final value or known to it.
    /// (A write its device may have abandoned by signing into another account is not required to
    /// survive, but may still have landed: it counts as a possible concurrent write.)
    private func checkNotLost(final: String, setting: Int, account: Int) {
        let onAccount = writes.filter {
            $0.value.setting == setting && $0.value.saved && $0.value.origin == account
                && !$0.value.value.hasSuffix("!big")
        }
        let finalWrites = onAccount.filter { $0.value.value == final }
        var known = Set(finalWrites.keys)
        for write in finalWrites.values { known.formUnion(write.knowledge) }
        for (id, write) in onAccount where !known.contains(id) && !write.abandoned {
            // A later write of its own setting that knew it (refused, or abandoned) replaced it.
            if writes.contains(where: { $0.key != id && $0.value.setting == setting && $0.value.knowledge.contains(id) }
            ) {
                continue
            }
            let concurrent = onAccount.contains { other in
                other.key != id && !write.knowledge.contains(other.key) && !other.value.knowledge.contains(id)
            }
            if !concurrent {
                violations.append(
                    "[latest] account \(account): \(ScheduleSettings.syncedNames[setting]) write w\(id) by device "
                        + "\(write.device), which had seen every other write, was lost (devices show \(final))")
            }
        }
    }
}
