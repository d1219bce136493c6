import Foundation
import Testing

@testable import AppSettings

/// What happens to stored data that cannot be used: never a crash, developer defaults for what
/// cannot be read, the rest loaded, the bytes kept.
@Suite("Data safety", .capturedLibraryLog)
struct DataSafetyTests {
    let suite = TemporarySuite()

    func load(_ bytes: Data) -> (MySettings, AppSettingsError?) {
        let (copy, error) = TestingHooks(object: MySettings(userDefaults: suite.userDefaults)).loadCopy(
            fromStoredBytes: bytes)
        return (copy as! MySettings, error)
    }

    /// The settings an `unreadableSettings` error names; nil for any other error or none.
    func unreadableNames(_ error: AppSettingsError?) -> [String]? {
        guard case .unreadableSettings(_, let names, _) = error else { return nil }
        return names
    }

    func validArchive() throws -> Data {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        settings.theme = .dark
        settings.constellation = "Lyra"
        return try TestingHooks(object: settings).archivedBytes()
    }

    @Test(arguments: [
        ("empty", Data()),
        ("one byte", Data([0x62])),
        ("header only", Data("bplist00".utf8)),
        ("text", Data("not an archive at all".utf8)),
        ("XML property list", Data("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8)),
    ])
    func unreadableBytesGiveDeveloperDefaultsAndAnError(name: String, bytes: Data) {
        let (settings, error) = load(bytes)
        guard case .unreadableArchive(let key, let names, _) = error else {
            Issue.record("\(name): expected unreadableArchive, got \(String(describing: error))")
            return
        }
        #expect(key == "AppSettings.MyAppsSettings")
        #expect(names == ["dontDimScreen", "soundLevel", "theme", "constellation"])
        #expect(settings.soundLevel == 0.5)
        #expect(settings.theme == .light)
    }

    @Test func aPropertyListThatIsNotAnArchiveIsRefused() throws {
        let bytes = try PropertyListSerialization.data(
            fromPropertyList: ["settings": ["theme": "dark"]],
            format: .binary,
            options: 0
        )
        let (settings, error) = load(bytes)
        #expect(settings.theme == .light)
        guard case .unreadableArchive = error else {
            Issue.record("expected unreadableArchive, got \(String(describing: error))")
            return
        }
    }

    @Test func everyTruncationIsHandled() throws {
        let bytes = try validArchive()
        for length in 0..<bytes.count {
            let (_, error) = load(bytes.prefix(length))
            #expect(error != nil, "a blob cut to \(length) bytes loaded without an error")
        }
    }

    /// Every byte of a stored set (soundLevel 0.9, theme dark, constellation Lyra, dontDimScreen
    /// false) changed by each of five masks, the same inputs every run. Each load must be one of:
    /// - clean: every setting holds a valid value of its type. Nothing more is guaranteed for
    ///   `constellation` and `dontDimScreen` (a flip inside a string's bytes or a Boolean's marker
    ///   gives another valid value), `soundLevel` is in 0...1 (another Float, clamped), and
    ///   `theme` is `.dark` as written or `.light`, its default (a flip in its field name leaves it
    ///   unstored; the archive holds no other raw value of `Theme`);
    /// - `unreadableArchive` naming every setting, all of which hold their developer defaults;
    /// - `unreadableSettings` naming one or more declared settings, one reason each: those hold
    ///   their developer defaults, the others obey the clean rule.
    /// No other error. Each outcome is counted, and the counts are shown on failure.
    @Test func flippedBytesAreReadOrRefusedByName() throws {
        let bytes = try validArchive()
        let declared = ["dontDimScreen", "soundLevel", "theme", "constellation"]
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        func holdsDefault(_ settings: MySettings, _ name: String) -> Bool {
            switch name {
            case "dontDimScreen": settings.dontDimScreen == false
            case "soundLevel": settings.soundLevel == 0.5
            case "theme": settings.theme == .light
            default: settings.constellation == "Orion"
            }
        }
        func isValid(_ settings: MySettings) -> Bool {
            (0...1).contains(settings.soundLevel) && [.dark, .light].contains(settings.theme)
        }
        for position in 0..<bytes.count {
            for mask: UInt8 in [0x01, 0x02, 0x10, 0x80, 0xFF] {
                var damaged = bytes
                damaged[position] ^= mask
                let (settings, error) = load(damaged)
                let input = "byte \(position) ^ \(mask)"
                switch error {
                case nil:
                    let unchanged =
                        settings.soundLevel == 0.9 && settings.theme == .dark && settings.constellation == "Lyra"
                        && !settings.dontDimScreen
                    outcomes[unchanged ? "clean, as written" : "clean, other values", default: 0] += 1
                    if !isValid(settings) { failures.append("\(input): clean but \(settings)") }
                case .unreadableArchive(_, let names, _)?:
                    outcomes["unreadableArchive", default: 0] += 1
                    if names != declared || !declared.allSatisfy({ holdsDefault(settings, $0) }) {
                        failures.append("\(input): unreadableArchive naming \(names) with \(settings)")
                    }
                case .unreadableSettings(_, let names, let reasons)?:
                    outcomes["unreadableSettings", default: 0] += 1
                    if names.isEmpty || reasons.count != names.count || !names.allSatisfy(declared.contains)
                        || !names.allSatisfy({ holdsDefault(settings, $0) }) || !isValid(settings)
                    {
                        failures.append("\(input): unreadableSettings naming \(names) with \(settings)")
                    }
                case let other?:
                    outcomes["other error", default: 0] += 1
                    failures.append("\(input): \(other)")
                }
            }
        }
        #expect(failures == [], "outcomes: \(outcomes)")
        #expect(outcomes.values.reduce(0, +) == bytes.count * 5)
        // Most bytes are structure: the loader must notice them.
        #expect(outcomes["unreadableArchive", default: 0] > 0, "outcomes: \(outcomes)")
        #expect(outcomes["unreadableSettings", default: 0] > 0, "outcomes: \(outcomes)")
    }

    @Test func randomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 8, 40, 41, 100, 1000] {
            for _ in 0..<200 {
                var bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                if length > 8, Bool.random(using: &generator) {
                    bytes.replaceSubrange(0..<8, with: Data("bplist00".utf8))
                }
                let (settings, _) = load(bytes)
                #expect(settings.theme == .light)
            }
        }
    }
}
