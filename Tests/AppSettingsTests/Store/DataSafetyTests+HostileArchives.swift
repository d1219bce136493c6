import Foundation
import Testing

@testable import AppSettings

extension DataSafetyTests {
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
        let (loaded, error) = TestingHooks(object: template).loadCopy(fromStoredBytes: archive.finish(root: root))
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
        let (loaded, error) = TestingHooks(object: template).loadCopy(fromStoredBytes: archive.finish(root: root))
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
}
