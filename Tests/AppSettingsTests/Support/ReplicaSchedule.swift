import Foundation

/// One step of a replica schedule. Every value written names its write: `w<id>` an assignment,
/// `p<id>` another process's save, `s<id>` the Settings app, `t<id>` the `appsettings` tool,
/// `d<id>` the other device.
enum ReplicaStep: CustomStringConvertible {
    /// A live object's assignment.
    case assign(object: Int, setting: ReplicaSetting, id: Int)
    /// `synchronizeToUserDefaults()`.
    case save(Int)
    /// `resetToUserDefaults()`.
    case revert(Int)
    /// The object is replaced by a new one (object 0 starts syncing again).
    case relaunch(Int)
    /// A look at the shown keys, as a suite notice or the return to the foreground makes it.
    case look(Int)
    /// Another process (a short-lived object of another `UserDefaults` of the suite) loads,
    /// assigns and saves.
    case otherProcess(setting: ReplicaSetting, id: Int)
    /// The Settings app writes a shown key (a plain write through another `UserDefaults`).
    case settingsApp(setting: ReplicaSetting, id: Int)
    /// `appsettings set`.
    case toolSet(setting: ReplicaSetting, id: Int)
    /// `appsettings remove`.
    case toolRemove
    /// The other device changes a synced setting, having seen every change before; its value
    /// reaches this device's local copy of the cloud, and a change notice waits.
    case otherDevice(setting: ReplicaSetting, id: Int)
    /// The waiting change notices are delivered to object 0 (a pull).
    case deliver
    /// `refreshFromCloud()` on object 0 (a pull).
    case refresh

    var description: String {
        switch self {
        case .assign(let object, let setting, let id): "object \(object): \(setting) = w\(id)"
        case .save(let object): "object \(object): save"
        case .revert(let object): "object \(object): resetToUserDefaults()"
        case .relaunch(let object): "object \(object): relaunch"
        case .look(let object): "object \(object): looks at the shown keys"
        case .otherProcess(let setting, let id): "another process: \(setting) = p\(id), saved"
        case .settingsApp(let setting, let id): "the Settings app: \(setting) = s\(id)"
        case .toolSet(let setting, let id): "appsettings set \(setting) t\(id)"
        case .toolRemove: "appsettings remove"
        case .otherDevice(let setting, let id): "the other device: \(setting) = d\(id), saved, downloaded here"
        case .deliver: "object 0: change notices delivered"
        case .refresh: "object 0: refreshFromCloud()"
        }
    }
}

/// A random schedule of the replica harness: its seed, its objects (object 0 syncs) and steps.
struct ReplicaSchedule: CustomStringConvertible {
    var seed: UInt64
    var objectCount: Int
    var steps: [ReplicaStep]

    init(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        self.seed = seed
        objectCount = Int.random(in: 2...3, using: &random)
        steps = []
        let count = Int.random(in: 10...40, using: &random)
        for index in 0..<count {
            let id = index + 1
            let object = Int.random(in: 0..<objectCount, using: &random)
            let any = ReplicaSetting.allCases.randomElement(using: &random)!
            let shown = ReplicaSetting.shownSettings.randomElement(using: &random)!
            let synced = ReplicaSetting.syncedSettings.randomElement(using: &random)!
            let step: ReplicaStep =
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<24: .assign(object: object, setting: any, id: id)
                case 24..<38: .save(object)
                case 38..<41: .revert(object)
                case 41..<45: .relaunch(object)
                case 45..<51: .look(object)
                case 51..<55: .otherProcess(setting: any, id: id)
                case 55..<67: .settingsApp(setting: shown, id: id)
                case 67..<72: .toolSet(setting: any, id: id)
                case 72..<74: .toolRemove
                case 74..<84: .otherDevice(setting: synced, id: id)
                case 84..<93: .deliver
                default: .refresh
                }
            steps.append(step)
        }
    }

    var description: String {
        "  \(objectCount) objects (object 0 syncs)\n"
            + steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }

    /// A smaller schedule that still breaks the invariant of its first violation (steps removed
    /// in halving chunks while it does).
    func shrunk() -> (schedule: ReplicaSchedule, run: ReplicaScheduleRun) {
        var failing = ReplicaScheduleRun(self)
        failing.run()
        let invariant = failing.violations.first.map { String($0.prefix { $0 != "]" }) } ?? ""
        var current = self
        current.steps = shrunkSteps(steps) { steps in
            var candidate = self
            candidate.steps = steps
            let run = ReplicaScheduleRun(candidate)
            run.run()
            guard run.violations.contains(where: { $0.hasPrefix(invariant) }) else { return false }
            failing = run
            return true
        }
        return (current, failing)
    }
}

extension ReplicaModel {
    /// What the library is expected to do to the stored set in one step.
    enum Expectation {
        /// It writes nothing.
        case noWrite
        /// It writes (a save with changes, another process's save, the tool's edit or removal).
        case write
        /// A pull: it writes when the rule needs it to (`mustWrite`), and may otherwise.
        case pull(mustWrite: Bool)
        /// The tool refuses: nothing is stored.
        case refused
    }

    /// Applies `step`, as the documentation says the library does it; `wrote`: whether the
    /// library wrote the set in a pull (the documentation leaves a pull that changes nothing the
    /// model follows free to write). Throws, changing nothing, when two versions would tie.
    /// `looksAfterSettingsApp`: every live object looks at the keys right after the Settings app
    /// writes (see ``ReplicaScheduleRun``).
    mutating func apply(_ step: ReplicaStep, wrote: Bool, looksAfterSettingsApp: Bool) throws(Tie) -> Expectation {
        var next = self
        let expectation = try next.applying(step, wrote: wrote, looksAfterSettingsApp: looksAfterSettingsApp)
        if let tie = next.tie() { throw tie }
        self = next
        return expectation
    }

    private mutating func applying(
        _ step: ReplicaStep, wrote: Bool, looksAfterSettingsApp: Bool
    ) throws(Tie) -> Expectation {
        switch step {
        case .assign(let object, let setting, let id):
            assign("w\(id)", to: setting, of: object)
            return .noWrite
        case .save(let object):
            // A clean object's save does nothing: no look, no I/O.
            guard objects[object].hasUnsavedChanges else { return .noWrite }
            look(object)
            take(try reconcile(object, save: true), by: object, save: true, wrote: true)
            return .write
        case .revert(let object):
            objects[object] = Self.loaded(from: set, keys: keys, syncs: objects[object].syncs)
            return .noWrite
        case .relaunch(let object):
            objects[object] = Self.loaded(from: set, keys: keys, syncs: objects[object].syncs)
            return objects[object].syncs ? try pull(wrote: wrote) : .noWrite
        case .look(let object):
            look(object)
            return .noWrite
        case .otherProcess(let setting, let id):
            objects.append(Self.loaded(from: set, keys: keys, syncs: false))
            assign("p\(id)", to: setting, of: objects.count - 1)
            take(try reconcile(objects.count - 1, save: true), by: objects.count - 1, save: true, wrote: true)
            objects.removeLast()
            return .write
        case .settingsApp(let setting, let id):
            keys[setting] = "s\(id)"
            if looksAfterSettingsApp {
                for object in objects.indices { look(object) }
            }
            return .noWrite
        case .toolSet(let setting, let id):
            guard let edited = toolSet("t\(id)", for: setting) else { return .refused }
            set = edited
            keys = edited.shownRecord
            return .write
        case .toolRemove:
            guard set != nil else { return .refused }
            set = nil
            keys = [:]
            return .write
        case .otherDevice(let setting, let id):
            // It saw every change before: its version is one above the cloud's.
            cloud[setting] = Stamp(counter: (cloud[setting]?.counter ?? 0) + 1, value: "d\(id)")
            noticePending = true
            return .noWrite
        case .deliver:
            guard noticePending else { return .noWrite }
            noticePending = false
            return try pull(wrote: wrote)
        case .refresh:
            return try pull(wrote: wrote)
        }
    }

    /// A pull of object 0.
    mutating func pull(wrote: Bool) throws(Tie) -> Expectation {
        let reconciled = try reconcile(0, save: false)
        take(reconciled, by: 0, save: false, wrote: wrote)
        return .pull(mustWrite: reconciled.mustWrite)
    }
}
