import AppSettings
import Foundation
import Observation
import Synchronization

// MARK: One setting: reading and writing

/// Two settings as an `AppSettingsObject`.
final class ReadWriteSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 0.5
    @Setting var userName = "Ada Lovelace"

    override var userDefaultsKeyPostfix: String { "ReadWriteSettings" }
}

/// The same two settings as plain stored properties guarded by a `Mutex`: the floor for a
/// thread-safe setting.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)  // Synchronization's Mutex
final class MutexSettings: Sendable {
    private struct Values {
        var volume = 0.5
        var userName = "Ada Lovelace"
    }

    private let values = Mutex(Values())

    var volume: Double {
        get { values.withLock { $0.volume } }
        set { values.withLock { $0.volume = newValue } }
    }

    var userName: String {
        get { values.withLock { $0.userName } }
        set { values.withLock { $0.userName = newValue } }
    }
}

/// The Mutex-guarded property with what the library's contract adds to every setting, as an
/// `@Observable` class written by hand for threads would: Observation's read tracking on every
/// read; on every change, Observation's `withMutation` and one `NotificationCenter` post naming
/// the setting. The difference to `MutexSettings` is what that contract costs anyone.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)  // Synchronization's Mutex
final class ObservedMutexSettings: Observable, Sendable {
    private let values = Mutex(0.5)
    private let registrar = ObservationRegistrar()
    static let didChange = Notification.Name("ObservedMutexSettingsDidChange")
    /// Made once, as the library makes one per setting; only read.
    nonisolated(unsafe) private static let changeUserInfo: [AnyHashable: Any] = ["names": ["volume"]]

    var volume: Double {
        get {
            registrar.access(self, keyPath: \.volume)
            return values.withLock { $0 }
        }
        set {
            let changed = registrar.withMutation(of: self, keyPath: \.volume) {
                values.withLock { value in
                    defer { value = newValue }
                    return value != newValue
                }
            }
            if changed {
                NotificationCenter.default.post(name: Self.didChange, object: self, userInfo: Self.changeUserInfo)
            }
        }
    }
}

// MARK: A settings set: the three ways of storing it

/// What the benchmark needs of a generated settings class.
protocol BenchmarkSettingsSet: AppSettingsObject {
    func makeDirty()
    var checksum: Int { get }
}

extension Settings20: BenchmarkSettingsSet {}
extension Settings200: BenchmarkSettingsSet {}
#if !DEBUG  // a stand-in in debug builds (Plugins/BenchmarkSettingsGenerator)
    extension Settings2000: BenchmarkSettingsSet {}
#endif

/// What the benchmark needs of a generated `Codable` struct.
protocol BenchmarkPlainSet: Codable, Sendable {
    init()
    mutating func makeDirty()
    var checksum: Int { get }
}

extension PlainSettings20: BenchmarkPlainSet {}
extension PlainSettings200: BenchmarkPlainSet {}
#if !DEBUG
    extension PlainSettings2000: BenchmarkPlainSet {}
#endif

/// The values of the generated settings: setting `i` has kind `i % 6` (must match
/// Plugins/BenchmarkSettingsGenerator).
enum BenchmarkValues {
    static func bool(at index: Int) -> Bool { (index / 6) % 2 == 0 }
    static func integer(at index: Int) -> Int { index * 1000 + 7 }
    static func double(at index: Int) -> Double { Double(index) + 0.25 }
    static func string(at index: Int) -> String { "value \(index)" }
    static func date(at index: Int) -> Date { Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)) }
    static func strings(at index: Int) -> [String] { ["first \(index)", "second \(index)"] }
}

/// The same settings stored one `UserDefaults` key per setting, as Defaults, SwiftyUserDefaults
/// or `@AppStorage` store them, written and read through the typed `UserDefaults` methods.
struct PerKeySettings {
    private var bools: [(key: String, value: Bool)] = []
    private var integers: [(key: String, value: Int)] = []
    private var doubles: [(key: String, value: Double)] = []
    private var strings: [(key: String, value: String)] = []
    private var dates: [(key: String, value: Date)] = []
    private var stringArrays: [(key: String, value: [String])] = []

    init(count: Int) {
        for index in 0..<count {
            let key = "setting\(index)"
            switch index % 6 {
            case 0: bools.append((key, BenchmarkValues.bool(at: index)))
            case 1: integers.append((key, BenchmarkValues.integer(at: index)))
            case 2: doubles.append((key, BenchmarkValues.double(at: index)))
            case 3: strings.append((key, BenchmarkValues.string(at: index)))
            case 4: dates.append((key, BenchmarkValues.date(at: index)))
            default: stringArrays.append((key, BenchmarkValues.strings(at: index)))
            }
        }
    }

    /// Changes one setting, as `Settings.makeDirty()` does.
    mutating func makeDirty() { bools[0].value.toggle() }

    /// One `set(_:forKey:)` per setting.
    func write(to defaults: UserDefaults) {
        for (key, value) in bools { defaults.set(value, forKey: key) }
        for (key, value) in integers { defaults.set(value, forKey: key) }
        for (key, value) in doubles { defaults.set(value, forKey: key) }
        for (key, value) in strings { defaults.set(value, forKey: key) }
        for (key, value) in dates { defaults.set(value, forKey: key) }
        for (key, value) in stringArrays { defaults.set(value, forKey: key) }
    }

    /// One typed read per setting; returns a checksum of what was read.
    func read(from defaults: UserDefaults) -> Int {
        var checksum = 0
        for (key, _) in bools where defaults.bool(forKey: key) { checksum &+= 1 }
        for (key, _) in integers { checksum &+= defaults.integer(forKey: key) }
        for (key, _) in doubles { checksum &+= Int(defaults.double(forKey: key)) }
        for (key, _) in strings { checksum &+= defaults.string(forKey: key)?.utf8.count ?? 0 }
        for (key, _) in dates {
            checksum &+= Int((defaults.object(forKey: key) as? Date)?.timeIntervalSinceReferenceDate ?? 0)
        }
        for (key, _) in stringArrays { checksum &+= defaults.stringArray(forKey: key)?.count ?? 0 }
        return checksum
    }
}

// MARK: Temporary suites

/// A `UserDefaults` suite with a fresh name, removed with everything the library keeps for it.
final class TemporarySuite {
    let name = "AppSettingsBenchmark-" + UUID().uuidString
    let defaults: UserDefaults

    private nonisolated(unsafe) static var all: [TemporarySuite] = []

    init() {
        guard let defaults = UserDefaults(suiteName: name) else { fatalError("cannot create suite \(name)") }
        self.defaults = defaults
        Self.all.append(self)
    }

    /// Removes every suite created so far: the domain, its file, and the library's directory with
    /// the recovery copy and the lock file.
    static func removeAll() {
        for suite in all {
            do {
                try AppSettingsStore.suite(suite.name).remove()
            } catch {
                print("could not remove suite \(suite.name): \(error)")
            }
        }
        all = []
    }
}
