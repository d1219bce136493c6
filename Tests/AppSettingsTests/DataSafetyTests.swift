import Foundation
import Testing

@testable import AppSettings

/// What happens to stored data that cannot be used: never a crash, developer defaults for what
/// cannot be read, the rest loaded, the bytes kept.
@Suite("Data safety", .capturedLibraryLog)
struct DataSafetyTests {
    let suite = TemporarySuite()

    private func load(_ bytes: Data) -> (MySettings, AppSettingsError?) {
        let (copy, error) = MySettings(userDefaults: suite.userDefaults)._loadCopy(fromStoredBytes: bytes)
        return (copy as! MySettings, error)
    }

    /// The settings an `unreadableSettings` error names; nil for any other error or none.
    private func unreadableNames(_ error: AppSettingsError?) -> [String]? {
        guard case .unreadableSettings(_, let names, _) = error else { return nil }
        return names
    }

    private func validArchive() throws -> Data {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.9
        settings.theme = .dark
        settings.constellation = "Lyra"
        return try settings._archivedBytes()
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

    @Test func aValueOfTheWrongTypeKeepsItsDefaultAndTheOthersLoad() throws {
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "soundLevel": archive.add(.string("loud")),
            "theme": archive.add(.string("dark")),
            "dontDimScreen": archive.add(.bool(true)),
        ])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.soundLevel == 0.5)
        #expect(settings.theme == .dark)
        #expect(settings.dontDimScreen == true)
        guard case .unreadableSettings(_, let names, let reasons) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(names == ["soundLevel"])
        #expect(reasons.first?.contains("expected Float") == true)
    }

    @Test func objectsOfOtherClassesAreRefusedPerSetting() throws {
        let tag = try NSKeyedArchiver.archivedData(withRootObject: Tag(name: "x"), requiringSecureCoding: true)
        // Foundation archives an object of a class the settings never hold, next to good values.
        let root = NSDictionary(dictionary: [
            "formatVersion": 1, "schemaVersion": 0,
            "settings": NSDictionary(dictionary: [
                "theme": NSDate(), "soundLevel": NSArray(array: [NSNumber(value: 1)]), "constellation": "Lyra",
                "dontDimScreen": NSData(data: tag),
            ]),
        ])
        let bytes = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
        let (settings, error) = load(bytes)
        #expect(settings.constellation == "Lyra")
        #expect(settings.theme == .light)
        guard case .unreadableSettings(_, let names, _) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(Set(names) == ["theme", "soundLevel", "dontDimScreen"])
    }

    @Test func badFieldsOfTheRootObjectAreRefusedPerSetting() {
        // Format 2: an inline value that no typed encoder writes (a string, an array), an inline
        // number for a string setting, next to good inline and object fields.
        var archive = HandMadeArchive()
        let lyra = archive.add(.string("Lyra"))
        let root = archive.object(
            ArchiveFormat.rootClassName,
            [
                "theme": .plain(.string("dark")), "soundLevel": .plain(.array([])),
                "constellation": .plain(.integer(3)), "dontDimScreen": .plain(.bool(true)),
                "$$constellation": .reference(lyra),
            ])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.dontDimScreen == true)
        guard case .unreadableSettings(_, let names, _) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(Set(names) == ["theme", "soundLevel", "constellation"])
    }

    @Test func aRootThatIsNoSettingsSetIsUnreadable() {
        var plain = HandMadeArchive()
        let string = plain.add(.string("not an object"))
        var badVersion = HandMadeArchive()
        let badVersionRoot = badVersion.object(
            ArchiveFormat.rootClassName, ["$schemaVersion": .plain(.string("7")), "dontDimScreen": .plain(.bool(true))])
        var noSettings = HandMadeArchive()
        let noSettingsRoot = noSettings.dictionary(["formatVersion": noSettings.add(.integer(1))])
        var otherClass = HandMadeArchive()
        let otherClassRoot = otherClass.object("NSDate", ["NS.time": .plain(.double(5))])
        for bytes in [
            plain.finish(root: string), badVersion.finish(root: badVersionRoot),
            noSettings.finish(root: noSettingsRoot), otherClass.finish(root: otherClassRoot),
        ] {
            let (settings, error) = load(bytes)
            #expect(settings.dontDimScreen == false)
            guard case .unreadableArchive = error else {
                Issue.record("expected unreadableArchive, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test func unknownAndHostileClassNamesAreRefused() {
        for className in [
            "NSBogusClass", "AppSettingsTests.Tag", "../../../etc/passwd", String(repeating: "A", count: 10_000), "",
        ] {
            var archive = HandMadeArchive()
            let hostile = archive.object(className, ["NS.objects": .references([])])
            let root = archive.settingsRoot(["theme": hostile, "constellation": archive.add(.string("Lyra"))])
            let (settings, error) = load(archive.finish(root: root))
            #expect(settings.constellation == "Lyra")
            guard case .unreadableSettings(_, let names, _) = error else {
                Issue.record("\(className.prefix(20)): expected unreadableSettings, got \(String(describing: error))")
                continue
            }
            #expect(names == ["theme"])
        }
    }

    @Test func aClassReferenceToANonDictionaryIsRefused() {
        // The shape that makes Foundation's own unarchiver trap on Linux.
        var archive = HandMadeArchive()
        let notAClass = archive.add(.string("NSArray"))
        let bad = archive.add(.dictionary(keys: [], values: []))
        _ = bad
        let array = archive.object("NSArray", ["NS.objects": .references([])])
        let root = archive.settingsRoot(["theme": array, "soundLevel": notAClass])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.theme == .light)
        #expect(unreadableNames(error) == ["soundLevel", "theme"], "\(String(describing: error))")
    }

    @Test func cyclesAreRefused() {
        var archive = HandMadeArchive()
        let array = archive.reserve()
        archive.object("NSArray", ["NS.objects": .references([array])], at: array)
        let root = archive.settingsRoot(["theme": array, "constellation": archive.add(.string("Lyra"))])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.constellation == "Lyra")
        guard case .unreadableSettings(_, let names, let reasons) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(names == ["theme"])
        #expect(reasons.first?.contains("cycle") == true)
    }

    @Test func absurdlyDeepNestingIsRefused() {
        var archive = HandMadeArchive()
        var inner = archive.object("NSArray", ["NS.objects": .references([])])
        for _ in 0..<10_000 { inner = archive.object("NSArray", ["NS.objects": .references([inner])]) }
        let root = archive.settingsRoot(["theme": inner, "constellation": archive.add(.string("Lyra"))])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.constellation == "Lyra")
        #expect(unreadableNames(error) == ["theme"], "\(String(describing: error))")
    }

    @Test func graphsThatExpandExponentiallyAreRefused() {
        // 60 levels, each referring twice to the next: 2^60 objects if expanded.
        var archive = HandMadeArchive()
        var level = archive.object("NSArray", ["NS.objects": .references([])])
        for _ in 0..<60 { level = archive.object("NSArray", ["NS.objects": .references([level, level])]) }
        let root = archive.settingsRoot(["theme": level, "constellation": archive.add(.string("Lyra"))])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.constellation == "Lyra")
        #expect(unreadableNames(error) == ["theme"], "\(String(describing: error))")
    }

    @Test func aSharedStringIsDecodedOnceHoweverOftenItIsReferenced() throws {
        // A 40 KB archive whose array refers 20,000 times to one 20,000-character string (the form
        // the library's own writer produces). Decoding each reference anew took 400 MB and 8 s.
        var archive = HandMadeArchive()
        let text = archive.add(.string(String(repeating: "x", count: 20_000)))
        let array = archive.object("NSArray", ["NS.objects": .references(Array(repeating: text, count: 20_000))])
        let root = archive.settingsRoot(["strings": array])
        let template = AllTypesSettings(userDefaults: suite.userDefaults)
        let (loaded, error) = template._loadCopy(fromStoredBytes: archive.finish(root: root))
        #expect(error == nil)
        var strings = try #require(loaded as? AllTypesSettings).strings
        #expect(strings.count == 20_000)
        // All elements share one buffer: the string was decoded once.
        let first = strings[0].withUTF8 { UInt(bitPattern: $0.baseAddress) }
        let last = strings[19_999].withUTF8 { UInt(bitPattern: $0.baseAddress) }
        #expect(first == last)
        strings.removeAll()
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aDateThatIsNotANumberIsRefused(time: Double) throws {
        // Found by the fuzzer: describing a date whose time is NaN traps inside Foundation.
        var archive = HandMadeArchive()
        let date = archive.object("NSDate", ["NS.time": .plain(.double(time))])
        let root = archive.settingsRoot(["date": date, "string": archive.add(.string("loaded"))])
        let template = AllTypesSettings(userDefaults: suite.userDefaults)
        let (loaded, error) = template._loadCopy(fromStoredBytes: archive.finish(root: root))
        let settings = try #require(loaded as? AllTypesSettings)
        #expect(settings.string == "loaded")
        #expect(settings.date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(settings.description.contains("string = loaded"))
        guard case .unreadableSettings(_, let names, _) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(names == ["date"])
    }

    @Test func referencesOutOfRangeAreRefused() {
        var archive = HandMadeArchive()
        let broken = archive.object("NSArray", ["NS.objects": .references([9_999])])
        let root = archive.settingsRoot(["theme": broken, "constellation": archive.add(.string("Lyra"))])
        let (settings, error) = load(archive.finish(root: root))
        #expect(settings.constellation == "Lyra")
        #expect(unreadableNames(error) == ["theme"], "\(String(describing: error))")
    }

    @Test func aValueThatIsNotDataIsKeptAndBackedUpBeforeItIsReplaced() throws {
        let key = MySettings(userDefaults: suite.userDefaults).userDefaultsKey
        suite.userDefaults.set(["written": "by someone else"], forKey: key)
        let settings = MySettings(userDefaults: suite.userDefaults)
        guard case .notData(key, let foundType) = settings.lastLoadError else {
            Issue.record("expected notData, got \(String(describing: settings.lastLoadError))")
            return
        }
        #expect(foundType.hasPrefix("Dictionary"))
        #expect(throws: AppSettingsError.notData(key: key, foundType: foundType)) {
            try settings.resetToUserDefaults()
        }
        // Loading never writes: the value is still there.
        #expect(suite.storedObject(forKey: key) as? [String: String] == ["written": "by someone else"])
        settings.theme = .dark
        try settings.synchronizeToUserDefaults()
        let backups = suite.another().dictionaryRepresentation().filter { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backups.count == 1)
        #expect((backups.first?.value as? [String: Any])?["written"] as? String == "by someone else")
        #expect(MySettings(userDefaults: suite.another()).theme == .dark)
        // Once backed up, later synchronizations make no more backups.
        settings.theme = .system
        try settings.synchronizeToUserDefaults()
        #expect(
            suite.another().dictionaryRepresentation().keys.filter { $0.hasPrefix(key + ".unreadable-") }.count == 1)
    }

    @Test func damagedBytesAreBackedUpBeforeTheyAreReplaced() throws {
        var damaged = try validArchive()
        damaged[damaged.count / 2] ^= 0xFF
        damaged.removeLast(10)
        let key = "AppSettings.MyAppsSettings"
        suite.userDefaults.set(damaged, forKey: key)
        let settings = MySettings(userDefaults: suite.userDefaults)
        guard case .unreadableArchive(key, _, _) = settings.lastLoadError else {
            Issue.record("expected unreadableArchive, got \(String(describing: settings.lastLoadError))")
            return
        }
        settings.soundLevel = 0.3
        try settings.synchronizeToUserDefaults()
        let backup = suite.another().dictionaryRepresentation().first { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backup?.value as? Data == damaged)
    }

    @Test func anArchiveOfANewerFormatIsRefusedAndKept() throws {
        var archive = HandMadeArchive()
        let theme = archive.add(.string("dark"))
        let root = archive.object(
            ArchiveFormat.rootClassName, ["$formatVersion": .plain(.integer(3)), "theme": .reference(theme)])
        let bytes = archive.finish(root: root)
        let key = "AppSettings.MyAppsSettings"
        suite.userDefaults.set(bytes, forKey: key)
        let settings = MySettings(userDefaults: suite.userDefaults)
        guard case .unreadableArchive(_, _, let reason) = settings.lastLoadError else {
            Issue.record("expected unreadableArchive, got \(String(describing: settings.lastLoadError))")
            return
        }
        #expect(reason.contains("format 3"))
        #expect(settings.theme == .light)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let backup = suite.another().dictionaryRepresentation().first { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backup?.value as? Data == bytes)
    }

    @Test func unknownNamesBeginningWithDollarAreEscapedAndKept() throws {
        // Format 1 allowed any dictionary key; a carried-over "$…" name must not clash with the
        // "$formatVersion" and "$schemaVersion" fields of format 2.
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "$schemaVersion": archive.add(.string("not a version")), "$x": archive.add(.integer(5)),
            "theme": archive.add(.string("dark")),
        ])
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.lastLoadError == nil)
        #expect(settings.theme == .dark)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let contents = try StoredSetContents(
            #require(suite.storedObject(forKey: "AppSettings.MyAppsSettings") as? Data))
        #expect(contents.schemaVersion == 0)
        #expect(contents.settings["$schemaVersion"] == .string("not a version"))
        #expect(contents.settings["$x"] == .integer(5))
        #expect(MySettings(userDefaults: suite.another()).dontDimScreen == true)
    }

    @Test func aPartlyReadableSetIsBackedUpTooSoNothingIsLost() throws {
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "soundLevel": archive.add(.string("loud")), "theme": archive.add(.string("dark")),
        ])
        let bytes = archive.finish(root: root)
        suite.userDefaults.set(bytes, forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.theme == .dark)
        settings.dontDimScreen = true
        try settings.synchronizeToUserDefaults()
        let backup = suite.another().dictionaryRepresentation().first {
            $0.key.hasPrefix("AppSettings.MyAppsSettings.unreadable-")
        }
        #expect(backup?.value as? Data == bytes)
    }

    @Test func settingsWrittenByANewerVersionAreCarriedOver() throws {
        var archive = HandMadeArchive()
        let root = archive.settingsRoot(
            ["theme": archive.add(.string("dark")), "futureSetting": archive.add(.string("from the future"))],
            schemaVersion: 7
        )
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.MyAppsSettings")
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(settings.lastLoadError == nil)
        #expect(settings.theme == .dark)
        settings.soundLevel = 0.2
        try settings.synchronizeToUserDefaults()
        let stored = try #require(suite.storedObject(forKey: "AppSettings.MyAppsSettings") as? Data)
        let contents = try StoredSetContents(stored)
        #expect(contents.settings["futureSetting"] == .string("from the future"))
        #expect(contents.schemaVersion == 7)
        #expect(settings.dictionaryRepresentation()["futureSetting"] == nil)
    }

    @Test func aRenamedSettingIsMigrated() throws {
        final class Version1: AppSettingsObject, @unchecked Sendable {
            @Setting var fontSize = 12
            override var userDefaultsKeyPostfix: String { "Migrating" }
        }
        final class Version2: AppSettingsObject, @unchecked Sendable {
            @Setting var textSize = 14.0
            override var userDefaultsKeyPostfix: String { "Migrating" }
            override class var schemaVersion: Int { 2 }
            override func migrate(_ values: inout [String: Any], fromSchemaVersion version: Int) throws {
                if version < 2, let fontSize = values.removeValue(forKey: "fontSize") as? Int {
                    values["textSize"] = Double(fontSize) * 1.5
                }
            }
        }
        let old = Version1(userDefaults: suite.userDefaults)
        old.fontSize = 10
        try old.synchronizeToUserDefaults()
        let new = Version2(userDefaults: suite.another())
        #expect(new.lastLoadError == nil)
        #expect(new.textSize == 15)
        new.textSize = 16
        try new.synchronizeToUserDefaults()
        #expect(Version2(userDefaults: suite.another()).textSize == 16)
    }

    @Test func aFailingMigrationIsReported() throws {
        struct Refused: Error {}
        final class Strict: AppSettingsObject, @unchecked Sendable {
            @Setting var value = 1
            override var userDefaultsKeyPostfix: String { "Strict" }
            override class var schemaVersion: Int { 1 }
            override func migrate(_ values: inout [String: Any], fromSchemaVersion: Int) throws { throw Refused() }
        }
        var archive = HandMadeArchive()
        let root = archive.settingsRoot(["value": archive.add(.integer(5))])
        suite.userDefaults.set(archive.finish(root: root), forKey: "AppSettings.Strict")
        let settings = Strict(userDefaults: suite.userDefaults)
        guard case .migrationFailed(_, 0, _) = settings.lastLoadError else {
            Issue.record("expected migrationFailed, got \(String(describing: settings.lastLoadError))")
            return
        }
    }

    @Test func aSetLargerThanFourMebibytesIsRefusedBeforeAnythingIsWritten() throws {
        final class Big: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        let settings = Big(userDefaults: suite.userDefaults)
        settings.payload = Data(count: 5 * 1024 * 1024)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let limit) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Big" && byteCount > limit && limit == SettingsStore.maximumDomainByteCount
        }
        #expect(suite.storedObject(forKey: "AppSettings.Big") == nil)
        #expect(settings.hasUnsavedChanges)
    }

    @Test func theDomainsOtherKeysCountTowardsTheLimit() throws {
        final class Medium: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        // Each part fits alone; together they do not.
        let third = SettingsStore.maximumDomainByteCount / 3
        suite.userDefaults.set(Data(count: third), forKey: "other code's data")
        let other = Medium(userDefaults: suite.userDefaults)
        other.payload = Data(count: third)
        try other.synchronizeToUserDefaults()
        final class Large: AppSettingsObject, @unchecked Sendable {
            @Setting var payload = Data()
        }
        let settings = Large(userDefaults: suite.userDefaults)
        settings.payload = Data(count: third + 1024)
        #expect {
            try settings.synchronizeToUserDefaults()
        } throws: { error in
            guard case .tooLarge(let key, let byteCount, let limit) = error as? AppSettingsError else { return false }
            return key == "AppSettings.Large" && byteCount > 3 * third && limit == SettingsStore.maximumDomainByteCount
        }
        #expect(suite.storedObject(forKey: "AppSettings.Large") == nil)
        settings.payload = Data(count: 1024)
        try settings.synchronizeToUserDefaults()
    }

    @Test func backupsOfUnreadableSetsAreCappedToTheNewest() throws {
        let key = MySettings(userDefaults: suite.userDefaults).userDefaultsKey
        for round in 1...5 {
            suite.userDefaults.set(Data("damaged \(round)".utf8), forKey: key)
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            Thread.sleep(forTimeInterval: 0.002)  // backup keys are stamped in milliseconds
        }
        let backups = suite.another().dictionaryRepresentation().filter { $0.key.hasPrefix(key + ".unreadable-") }
        #expect(backups.count == SettingsStore.maximumBackupCount)
        let kept = Set(backups.values.compactMap { ($0 as? Data).map { String(decoding: $0, as: UTF8.self) } })
        #expect(kept == ["damaged 3", "damaged 4", "damaged 5"])
    }

    // The Linux store only (the model of Apple's: see IntegrationTests/AppleBranches/Package.swift).
    #if os(Linux) && !APPLE_STAND_INS
        /// Issue 26, finding 5, on Linux: corelibs says which suite a `UserDefaults` reads, so one
        /// suite has one lock file and one watched folder however its `UserDefaults` was made.
        @Test func everyUserDefaultsOfOneSuiteHasOneLockFileHoweverMade() throws {
            let group = try #require(UserDefaults(appGroup: suite.name))
            let plain = try #require(UserDefaults(suiteName: suite.name))
            let first = MySettings(userDefaults: group)
            let second = MySettings(userDefaults: plain)
            let locations = [first, second].compactMap { ($0.store.domain as? PreferencesDomain)?.location }
            try #require(locations.count == 2)
            #expect(locations[0] === locations[1])
            #expect(locations[0] === DomainLocation.of(suite.userDefaults))
        }

        @Test func aDamagedDomainFileIsRecoveredFromTheCopy() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            // What a process killed while corelibs rewrote the file in place leaves behind.
            let domainFile = try #require(settings.domainFileURL)
            let original = try Data(contentsOf: domainFile)
            try original.prefix(original.count / 3).write(to: domainFile)
            suite.userDefaults.synchronize()
            #expect(suite.userDefaults.object(forKey: settings.userDefaultsKey) == nil)
            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.theme == .dark)
        }

        @Test func aRecoveryCopyThatCannotBeWrittenIsAThrownError() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            // A non-empty directory where the copy goes: renaming the written copy over it fails.
            let copy = try #require(settings.recoveryCopyURL)
            try FileManager.default.removeItem(at: copy)
            try FileManager.default.createDirectory(
                at: copy.appendingPathComponent("in the way"), withIntermediateDirectories: true)
            settings.theme = .light
            #expect {
                try settings.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(let key, let reason) = error as? AppSettingsError else { return false }
                return key == settings.userDefaultsKey && reason.contains(".archive")
            }
            #expect(settings.hasUnsavedChanges)
            try FileManager.default.removeItem(at: copy)
            try settings.synchronizeToUserDefaults()
            #expect(!settings.hasUnsavedChanges)
            #expect(MySettings(userDefaults: suite.another()).theme == .light)
        }

        /// A configuration this process cannot write (a read-only mount, settings provisioned by an
        /// administrator): the lock file cannot be opened for writing. Made here so that root, as CI
        /// runs, meets it too: the lock file is a directory, which no one opens for writing.
        @Test func aConfigurationThatCannotBeWrittenLoadsAndRefusesSavesByName() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let lockFile = try #require(writer.recoveryCopyURL).deletingLastPathComponent()
                .appendingPathComponent("domain.lock")
            try FileManager.default.removeItem(at: lockFile)
            try FileManager.default.createDirectory(at: lockFile, withIntermediateDirectories: false)

            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError == nil)
            #expect(reader.theme == .dark)
            try reader.resetToUserDefaults()
            reader.theme = .light
            #expect {
                try reader.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(let key, let reason) = error as? AppSettingsError else { return false }
                return key == reader.userDefaultsKey && reason.contains(lockFile.path)
                    && reason.contains("could not be opened for writing")
            }
            #expect(reader.hasUnsavedChanges)
        }

        /// No lock file can be had at all (its directory cannot exist): a reader still loads.
        @Test func aReaderWithoutALockFileStillLoads() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let directory = try #require(writer.recoveryCopyURL).deletingLastPathComponent()
            try FileManager.default.removeItem(at: directory)
            #expect(FileManager.default.createFile(atPath: directory.path, contents: Data("in the way".utf8)))
            defer { try? FileManager.default.removeItem(at: directory) }
            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError == nil)
            #expect(reader.theme == .dark)
            reader.theme = .light
            #expect {
                try reader.synchronizeToUserDefaults()
            } throws: { error in
                guard case .storeFailed(_, let reason) = error as? AppSettingsError else { return false }
                return reason.contains(directory.path) && !reason.hasPrefix("reading")
            }
        }
    #endif
}
