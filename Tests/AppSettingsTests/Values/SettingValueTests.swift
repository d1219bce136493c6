import Foundation
import Testing

@testable import AppSettings

@Suite("Setting values")
struct SettingValueTests {
    let suite = TemporarySuite.forSettings()

    /// Gives every setting of `AllTypesSettings` a value other than its developer default.
    static func fill(_ settings: AllTypesSettings) {
        settings.bool = true
        settings.int = -42
        settings.int8 = .min
        settings.int16 = .max
        settings.int32 = -123_456
        settings.int64 = .min
        settings.uint = 4_000_000_000
        settings.uint8 = .max
        settings.uint16 = 65_000
        settings.uint32 = .max
        settings.uint64 = .max
        settings.float = 0.1
        settings.double = -1.0e300
        settings.string = "Grüße, 世界 🌍"
        settings.date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        settings.data = Data([0, 1, 2, 255])
        settings.url = URL(string: "myapp://host/path?query=1#fragment")!
        settings.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        settings.optionalString = nil
        settings.optionalInt = 7
        settings.strings = ["a", "", "c"]
        settings.intSet = [3, 1, 2]
        settings.dictionary = ["pi": 3.14, "e": 2.71]
        settings.nestedArrays = [[1, 2], [], [3]]
        settings.optionalArray = ["x", nil, "z"]
        settings.theme = .dark
        settings.speed = .fast
        settings.frame = WindowFrame(x: 10, y: 20.5, title: "Main")
        settings.note = Note(text: "remember")
        settings.tag = Tag(name: "important")
        settings.audio.volume = 11
        settings.audio.muted = true
    }

    static func expectFilled(_ settings: AllTypesSettings, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(settings.bool == true, sourceLocation: sourceLocation)
        #expect(settings.int == -42, sourceLocation: sourceLocation)
        #expect(settings.int8 == .min, sourceLocation: sourceLocation)
        #expect(settings.int16 == .max, sourceLocation: sourceLocation)
        #expect(settings.int32 == -123_456, sourceLocation: sourceLocation)
        #expect(settings.int64 == .min, sourceLocation: sourceLocation)
        #expect(settings.uint == 4_000_000_000, sourceLocation: sourceLocation)
        #expect(settings.uint8 == .max, sourceLocation: sourceLocation)
        #expect(settings.uint16 == 65_000, sourceLocation: sourceLocation)
        #expect(settings.uint32 == .max, sourceLocation: sourceLocation)
        #expect(settings.uint64 == .max, sourceLocation: sourceLocation)
        #expect(settings.float == 0.1, sourceLocation: sourceLocation)
        #expect(settings.double == -1.0e300, sourceLocation: sourceLocation)
        #expect(settings.string == "Grüße, 世界 🌍", sourceLocation: sourceLocation)
        #expect(settings.date == Date(timeIntervalSinceReferenceDate: 123_456.789), sourceLocation: sourceLocation)
        #expect(settings.data == Data([0, 1, 2, 255]), sourceLocation: sourceLocation)
        #expect(settings.url.absoluteString == "myapp://host/path?query=1#fragment", sourceLocation: sourceLocation)
        #expect(settings.uuid.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", sourceLocation: sourceLocation)
        #expect(settings.optionalString == nil, sourceLocation: sourceLocation)
        #expect(settings.optionalInt == 7, sourceLocation: sourceLocation)
        #expect(settings.strings == ["a", "", "c"], sourceLocation: sourceLocation)
        #expect(settings.intSet == [1, 2, 3], sourceLocation: sourceLocation)
        #expect(settings.dictionary == ["pi": 3.14, "e": 2.71], sourceLocation: sourceLocation)
        #expect(settings.nestedArrays == [[1, 2], [], [3]], sourceLocation: sourceLocation)
        #expect(settings.optionalArray == ["x", nil, "z"], sourceLocation: sourceLocation)
        #expect(settings.theme == .dark, sourceLocation: sourceLocation)
        #expect(settings.speed == .fast, sourceLocation: sourceLocation)
        #expect(settings.frame == WindowFrame(x: 10, y: 20.5, title: "Main"), sourceLocation: sourceLocation)
        #expect(settings.note.text == "remember", sourceLocation: sourceLocation)
        #expect(settings.tag.name == "important", sourceLocation: sourceLocation)
        #expect(settings.audio.volume == 11, sourceLocation: sourceLocation)
        #expect(settings.audio.muted == true, sourceLocation: sourceLocation)
    }

    @Test func everyTypeRoundTripsThroughASecondInstance() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        Self.fill(settings)
        try settings.synchronizeToUserDefaults()
        let reloaded = AllTypesSettings(userDefaults: suite.another())
        #expect(reloaded.lastLoadError == nil)
        Self.expectFilled(reloaded)
        #expect(reloaded == settings)
    }

    @Test func developerDefaultsRoundTripToo() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        settings.int = 1
        settings.int = 0
        #expect(settings.hasUnsavedChanges)
        try settings.synchronizeToUserDefaults()
        let reloaded = AllTypesSettings(userDefaults: suite.another())
        #expect(reloaded == AllTypesSettings(store: .inMemory(UUID().uuidString)))
        #expect(reloaded.optionalString == "default")
        #expect(reloaded.optionalInt == nil)
    }

    @Test func aStoredNilComesBackAsNil() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        settings.optionalString = nil
        try settings.synchronizeToUserDefaults()
        #expect(AllTypesSettings(userDefaults: suite.another()).optionalString == nil)
    }

    @Test func whatTheLibraryWritesFoundationReads() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        Self.fill(settings)
        let bytes = try TestingHooks(object: settings).archivedBytes()
        #expect(try StoredSetContents(bytes).formatVersion == 2)
        // Foundation's own unarchiver, through an NSCoding class that knows the settings:
        // numbers and Booleans with the typed decoders, everything else as Foundation objects.
        var plan: [String: FoundationField.Kind] = [:]
        for name in [
            "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "optionalInt", "speed",
        ] {
            plan[name] = .int64
        }
        plan["bool"] = .bool
        plan["float"] = .float
        plan["double"] = .double
        for name in settings.settingNames where plan[name] == nil { plan[name] = .object }
        let stored = try FoundationSetReader.read(bytes, decoding: plan)
        #expect(stored.count == settings.settingNames.count)
        #expect(stored["bool"] as? Bool == true)
        #expect(stored["int"] as? Int64 == -42)
        #expect(stored["int8"] as? Int64 == Int64(Int8.min))
        #expect(stored["int16"] as? Int64 == Int64(Int16.max))
        #expect(stored["int32"] as? Int64 == -123_456)
        #expect(stored["int64"] as? Int64 == .min)
        #expect(stored["uint"] as? Int64 == 4_000_000_000)
        #expect(stored["uint8"] as? Int64 == 255)
        #expect(stored["uint16"] as? Int64 == 65_000)
        #expect(stored["uint32"] as? Int64 == Int64(UInt32.max))
        #expect((stored["uint64"] as? NSNumber)?.uint64Value == .max)
        #expect(stored["float"] as? Float == 0.1)
        #expect(stored["double"] as? Double == -1.0e300)
        #expect(stored["string"] as? String == "Grüße, 世界 🌍")
        #expect((stored["date"] as? Date)?.timeIntervalSinceReferenceDate == 123_456.789)
        #expect(stored["data"] as? Data == Data([0, 1, 2, 255]))
        #expect((stored["url"] as? URL)?.absoluteString == "myapp://host/path?query=1#fragment")
        #expect((stored["uuid"] as? UUID)?.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(stored["optionalString"] is NSNull)
        #expect(stored["optionalInt"] as? Int64 == 7)
        #expect(stored["strings"] as? [String] == ["a", "", "c"])
        #expect(Set((stored["intSet"] as? NSSet)?.compactMap { ($0 as? NSNumber)?.intValue } ?? []) == [1, 2, 3])
        #expect(stored["dictionary"] as? [String: Double] == ["pi": 3.14, "e": 2.71])
        #expect(stored["nestedArrays"] as? [[Int]] == [[1, 2], [], [3]])
        #expect((stored["optionalArray"] as? NSArray)?.count == 3)
        #expect((stored["optionalArray"] as? NSArray)?[1] is NSNull)
        #expect(stored["theme"] as? String == "dark")
        #expect(stored["speed"] as? Int64 == 2)
        let frame = try #require(stored["frame"] as? NSDictionary)
        #expect(frame["title"] as? String == "Main")
        #expect((stored["note"] as? NSDictionary)?["text"] as? String == "remember")
        let tagArchive = try #require(stored["tag"] as? Data)
        let tag = try NSKeyedUnarchiver.unarchivedObject(ofClass: Tag.self, from: tagArchive)
        #expect(tag?.name == "important")
        let audio = try #require(stored["audio"] as? NSDictionary)
        #expect((audio["volume"] as? NSNumber)?.intValue == 11)
        #expect((audio["muted"] as? NSNumber)?.boolValue == true)
    }

    /// The settings of ``fill(_:)`` as Foundation objects.
    static func filledFoundationObjects() throws -> [String: Any] {
        let tagArchive = try NSKeyedArchiver.archivedData(
            withRootObject: Tag(name: "important"), requiringSecureCoding: true)
        return [
            "bool": NSNumber(value: true), "int": NSNumber(value: -42), "int8": NSNumber(value: Int8.min),
            "int16": NSNumber(value: Int16.max), "int32": NSNumber(value: Int32(-123_456)),
            "int64": NSNumber(value: Int64.min), "uint": NSNumber(value: UInt(4_000_000_000)),
            "uint8": NSNumber(value: UInt8.max), "uint16": NSNumber(value: UInt16(65_000)),
            "uint32": NSNumber(value: UInt32.max), "uint64": NSNumber(value: UInt64.max),
            "float": NSNumber(value: Float(0.1)), "double": NSNumber(value: -1.0e300),
            "string": NSString(string: "Grüße, 世界 🌍"),
            "date": NSDate(timeIntervalSinceReferenceDate: 123_456.789),
            "data": NSData(data: Data([0, 1, 2, 255])),
            "url": NSURL(string: "myapp://host/path?query=1#fragment")!,
            "uuid": NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            "optionalString": NSNull(), "optionalInt": NSNumber(value: 7),
            "strings": NSArray(array: ["a", "", "c"].map { NSString(string: $0) }),
            "intSet": NSSet(array: [1, 2, 3].map { NSNumber(value: $0) }),
            "dictionary": NSDictionary(dictionary: ["pi": NSNumber(value: 3.14), "e": NSNumber(value: 2.71)]),
            "nestedArrays": NSArray(array: [
                NSArray(array: [NSNumber(value: 1), NSNumber(value: 2)]), NSArray(),
                NSArray(array: [NSNumber(value: 3)]),
            ]),
            "optionalArray": NSArray(array: [NSString(string: "x"), NSNull(), NSString(string: "z")]),
            "theme": NSString(string: "dark"), "speed": NSNumber(value: 2),
            "frame": NSDictionary(dictionary: [
                "x": NSNumber(value: 10.0), "y": NSNumber(value: 20.5), "title": NSString(string: "Main"),
            ]),
            "note": NSDictionary(dictionary: ["text": NSString(string: "remember")]),
            "tag": NSData(data: tagArchive),
            "audio": NSDictionary(dictionary: ["volume": NSNumber(value: 11), "muted": NSNumber(value: true)]),
        ]
    }

    @Test func whatFoundationWritesTheLibraryReads() throws {
        // The same settings, archived by Foundation's own NSKeyedArchiver from an NSCoding class
        // the way the library lays them out: numbers and Booleans with the typed encoders.
        var fields: [String: FoundationField] = [:]
        for (name, object) in try Self.filledFoundationObjects() {
            switch (name, object) {
            case ("bool", let number as NSNumber): fields[name] = .bool(number.boolValue)
            case ("float", let number as NSNumber): fields[name] = .float(number.floatValue)
            case ("double", let number as NSNumber): fields[name] = .double(number.doubleValue)
            case ("uint64", _): fields[name] = .object(object)
            case (_, let number as NSNumber): fields[name] = .int64(number.int64Value)
            default: fields[name] = .object(object)
            }
        }
        try expectLoadsFilled(try FoundationSetWriter.archive(fields))
    }

    /// Stored `bytes` load (as a copy, and through the real store) into the values of `fill(_:)`.
    @discardableResult
    func expectLoadsFilled(_ bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> AllTypesSettings
    {
        let template = AllTypesSettings(userDefaults: suite.userDefaults)
        let (loaded, error) = TestingHooks(object: template).loadCopy(fromStoredBytes: bytes)
        #expect(error == nil, sourceLocation: sourceLocation)
        Self.expectFilled(try #require(loaded as? AllTypesSettings), sourceLocation: sourceLocation)
        suite.userDefaults.set(bytes, forKey: template.userDefaultsKey)
        let reloaded = AllTypesSettings(userDefaults: suite.userDefaults)
        #expect(reloaded.lastLoadError == nil, sourceLocation: sourceLocation)
        Self.expectFilled(reloaded, sourceLocation: sourceLocation)
        return reloaded
    }

    @Test func aFormatOneArchiveByFoundationIsRead() throws {
        // Format 1: an NSDictionary root of Foundation objects, archived by Foundation itself.
        let root = NSDictionary(dictionary: [
            "formatVersion": NSNumber(value: 1), "schemaVersion": NSNumber(value: 0),
            "settings": NSDictionary(dictionary: try Self.filledFoundationObjects()),
        ])
        let bytes = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
        let reloaded = try expectLoadsFilled(bytes)
        // The next save writes the current format.
        reloaded.int = 1
        try reloaded.synchronizeToUserDefaults()
        let stored = try #require(suite.storedObject(forKey: reloaded.userDefaultsKey) as? Data)
        #expect(try StoredSetContents(stored).formatVersion == 2)
        #expect(AllTypesSettings(userDefaults: suite.another()).int == 1)
    }

    @Test func settingsObjectsSupportSecureCodingInOtherArchives() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        Self.fill(settings)
        let bytes = try NSKeyedArchiver.archivedData(withRootObject: settings, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: AllTypesSettings.self, from: bytes))
        Self.expectFilled(decoded)
        #expect(decoded == settings)
    }

    @Test func aCodableValueWithoutEquatableStillDetectsChanges() {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        settings.note = Note(text: "")
        #expect(!settings.hasUnsavedChanges)
        settings.note = Note(text: "changed")
        #expect(settings.hasUnsavedChanges)
    }

    @Test func storedNumbersConvertOnlyWhenTheyFit() throws {
        #expect(try Int8.value(from: .integer(127)) == 127)
        #expect(throws: StoredValueMismatch.self) { try Int8.value(from: .integer(128)) }
        #expect(throws: StoredValueMismatch.self) { try UInt.value(from: .integer(-1)) }
        #expect(try Int.value(from: .double(3)) == 3)
        #expect(throws: StoredValueMismatch.self) { try Int.value(from: .double(3.5)) }
        #expect(try Double.value(from: .integer(2)) == 2)
        #expect(throws: StoredValueMismatch.self) { try Bool.value(from: .integer(2)) }
        #expect(throws: StoredValueMismatch.self) { try String.value(from: .integer(2)) }
        #expect(throws: StoredValueMismatch.self) { try Theme.value(from: .string("purple")) }
    }
}
