import AppSettingsTesting
import Foundation

@testable import AppSettings

/// SplitMix64: a seeded generator that is the same on every platform.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One schedule: its devices, the simulator's options, and its steps.
struct Schedule: CustomStringConvertible {
    enum Step: CustomStringConvertible {
        case edit(device: Int, setting: Int, id: Int, save: Bool)
        case bigBlob(device: Int, id: Int)
        case editLocal(device: Int, id: Int)
        case save(Int)
        case revert(Int)
        case reset(Int)
        case remove(Int)
        case upload(Int, all: Bool)
        case download(Int, all: Bool)
        case notices(Int)
        case early(Int)
        case refresh(Int)
        case relaunch(Int)
        case stop(Int)
        case start(Int)
        case online(Int, Bool)
        case signOut(Int)
        case signIn(Int, account: Int)
        case wait(seconds: Int)
        case foreground(Int)
        case deliverAll

        var description: String {
            switch self {
            case .edit(let device, let setting, let id, let save):
                "device \(device): \(ScheduleSettings.syncedNames[setting]) = w\(id)\(save ? ", saved" : "")"
            case .bigBlob(let device, let id): "device \(device): blob = w\(id), over 1 MB, saved"
            case .editLocal(let device, let id): "device \(device): local = d\(device)-w\(id), saved"
            case .save(let device): "device \(device): save"
            case .revert(let device): "device \(device): resetToUserDefaults()"
            case .reset(let device): "device \(device): resetToDeveloperDefaults(), saved"
            case .remove(let device): "device \(device): removeFromUserDefaults()"
            case .upload(let device, let all): "device \(device): upload \(all ? "all" : "one")"
            case .download(let device, let all): "device \(device): download \(all ? "all" : "one")"
            case .notices(let device): "device \(device): notices delivered"
            case .early(let device): "device \(device): a notice before its data"
            case .refresh(let device): "device \(device): refreshFromCloud()"
            case .relaunch(let device): "device \(device): relaunch"
            case .stop(let device): "device \(device): stopSyncing()"
            case .start(let device): "device \(device): startSyncing()"
            case .online(let device, let online): "device \(device): \(online ? "online" : "offline")"
            case .signOut(let device): "device \(device): signed out"
            case .signIn(let device, let account): "device \(device): signed into account \(account)"
            case .wait(let seconds): "\(seconds) s pass"
            case .foreground(let device): "device \(device): the app returns to the foreground"
            case .deliverAll: "deliver everything"
            }
        }
    }

    var seed: UInt64
    var strict: Bool
    var deviceCount: Int
    var options: CloudKeyValueStoreSimulator.Options
    var steps: [Step]

    /// The schedule of `seed`; `strict`: on the simulator's strict mode (the server's own clock
    /// for conflicts, silent first downloads, uploads that lag account changes), else on options
    /// drawn at random.
    init(seed: UInt64, strict: Bool = false) {
        var random = SeededGenerator(state: seed)
        self.seed = seed
        self.strict = strict
        deviceCount = Int.random(in: 2...5, using: &random)
        options = .init(
            conflictResolution: Bool.random(using: &random) ? .newestWriteTime : .lastUploadWins,
            noticeDelivery: [.immediately, .manual, .insideSynchronize].randomElement(using: &random)!,
            omitsChangedKeys: Bool.random(using: &random))
        if strict {
            options.conflictResolution = .lastUploadWins
            options.silentFirstDownload = true
            options.uploadsLagAccountChanges = true
        }
        var steps: [Step] = []
        let count = Int.random(in: 10...40, using: &random)
        for index in 0..<count {
            let device = Int.random(in: 0..<deviceCount, using: &random)
            let id = index + 1
            let roll = Int.random(in: 0..<100, using: &random)
            let step: Step =
                switch roll {
                case 0..<26:
                    .edit(
                        device: device, setting: Int.random(in: 0..<4, using: &random), id: id,
                        save: Int.random(in: 0..<5, using: &random) != 0)
                case 26..<28: .edit(device: device, setting: 4, id: id, save: true)
                case 28..<29: .bigBlob(device: device, id: id)
                case 29..<32: .editLocal(device: device, id: id)
                case 32..<35: .save(device)
                case 35..<37: .revert(device)
                case 37..<39: .reset(device)
                case 39..<41: .remove(device)
                case 41..<49: .upload(device, all: Bool.random(using: &random))
                case 49..<57: .download(device, all: Bool.random(using: &random))
                case 57..<62: .notices(device)
                case 62..<64: .early(device)
                case 64..<67: .refresh(device)
                case 67..<70: .relaunch(device)
                // Accounts, and syncing stopped and started, often enough that most schedules
                // change an account while a change is unsaved or saved but not uploaded.
                case 70..<74: .stop(device)
                case 74..<78: .start(device)
                case 78..<81: .online(device, Bool.random(using: &random))
                case 81..<84: .signOut(device)
                case 84..<90: .signIn(device, account: Int.random(in: 0...1, using: &random))
                case 90..<94: .wait(seconds: Int.random(in: 1...400, using: &random))
                case 94..<95: .foreground(device)
                default: .deliverAll
                }
            steps.append(step)
        }
        self.steps = steps
        // Drawn last, so that a seed's steps are those it had before the option existed.
        if !strict { options.uploadsLagAccountChanges = Bool.random(using: &random) }
    }

    var description: String {
        "  \(deviceCount) devices, \(options.conflictResolution), notices \(options.noticeDelivery)"
            + (options.omitsChangedKeys ? " without keys" : "")
            + (options.silentFirstDownload ? ", silent first download" : "")
            + (options.uploadsLagAccountChanges ? ", uploads lag account changes" : "")
            + "\n"
            + steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }

    /// A smaller schedule that still breaks the invariant first broken (steps removed in halving
    /// chunks while it does).
    func shrunk() -> (schedule: Schedule, violations: [String]) {
        var current = self
        var violations = ScheduleRun(current).run()
        let invariant = violations.first.map { String($0.prefix { $0 != " " }) } ?? ""
        var chunk = max(current.steps.count / 2, 1)
        var attempts = 0
        while chunk >= 1 && attempts < 300 {
            var index = 0
            var removedAny = false
            while index < current.steps.count && attempts < 300 {
                var candidate = current
                candidate.steps.removeSubrange(index..<min(index + chunk, candidate.steps.count))
                attempts += 1
                let found = ScheduleRun(candidate).run()
                if !found.contains(where: { $0.hasPrefix(invariant) }) {
                    index += chunk
                } else {
                    current = candidate
                    violations = found
                    removedAny = true
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return (current, violations)
    }
}
