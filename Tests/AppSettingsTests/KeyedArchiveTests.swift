import Foundation
import Testing

@testable import AppSettings

/// `KeyedArchiveWriter` and `KeyedArchiveReader` on their own: every stored-value kind
/// round-trips, the root object's fields and `$`-escaped names are as ``ArchiveFormat`` says,
/// Foundation's archiver and unarchiver agree with them, and each refusal of the reader is
/// reached by an archive made for it.
@Suite("Keyed archive")
struct KeyedArchiveTests {
    typealias Object = BinaryPropertyListObject

    /// Reads a stored set as the loader does, every value decoded; `nil` or the error's text.
    private static func refusal(_ data: Data) -> String? {
        do {
            _ = try StoredSetContents(data)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A format-2 set whose one setting, `value`, refers to the object `build` adds.
    private static func holding(_ build: (inout HandMadeArchive) -> UInt32) -> Data {
        var archive = HandMadeArchive()
        let value = build(&archive)
        let root = archive.object(ArchiveFormat.rootClassName, ["value": .reference(value)])
        return archive.finish(root: root)
    }

    /// A format-2 set whose one setting, `value`, holds `object` inline.
    private static func inline(_ object: Object) -> Data {
        var archive = HandMadeArchive()
        let root = archive.object(ArchiveFormat.rootClassName, ["value": .plain(object)])
        return archive.finish(root: root)
    }

    /// A property list whose top dictionary has the given entries, to break the archive's frame.
    private static func frame(_ entries: (inout BinaryPropertyListWriter) -> [(key: Object, value: Int)]) -> Data {
        var writer = BinaryPropertyListWriter()
        let pairs = entries(&writer)
        let keys = pairs.map { writer.add($0.key) }
        let top = writer.add(.dictionary(keys: keys, values: pairs.map(\.value)))
        return writer.serialized(top: top)
    }

    /// A frame with `$archiver`, `$objects` (`$null` and a string) and `$top` as given.
    private static func frame(
        archiver: Object? = .string("NSKeyedArchiver"),
        objects: [Object]? = [.string("$null"), .string("x")],
        top: [(key: Object, value: Object)]? = [(.string("root"), .uid(1))]
    ) -> Data {
        frame { writer in
            var entries: [(key: Object, value: Int)] = []
            if let archiver { entries.append((.string("$archiver"), writer.add(archiver))) }
            if let objects {
                let indices = objects.map { writer.add($0) }
                entries.append((.string("$objects"), writer.add(.array(indices))))
            }
            if let top {
                let keys = top.map { writer.add($0.key) }
                let values = top.map { writer.add($0.value) }
                entries.append((.string("$top"), writer.add(.dictionary(keys: keys, values: values))))
            }
            return entries
        }
    }

    // MARK: Round trips

    static let everyKind: [(String, StoredValue)] = [
        ("nil", .null),
        ("false", .bool(false)),
        ("true", .bool(true)),
        ("integer", .integer(-5)),
        ("Int64.min", .integer(.min)),
        ("Int64.max", .integer(.max)),
        ("above Int64.max", .unsignedInteger(.max)),
        ("Float", .float(0.25)),
        ("Double", .double(-1e300)),
        ("string", .string("Grüße 🎉")),
        ("empty string", .string("")),
        ("data", .data(Data([0, 1, 0xFF]))),
        ("empty data", .data(Data())),
        ("date", .date(Date(timeIntervalSinceReferenceDate: 12_345.5))),
        ("URL", .url(URL(string: "https://example.com/a?b=c#d")!)),
        ("UUID", .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
        ("empty array", .array([])),
        ("empty set", .set([])),
        ("empty dictionary", .dictionary([:])),
        ("array", .array([.integer(1), .string("two"), .null, .float(3), .array([.bool(true)])])),
        ("set", .set([.string("a"), .string("b")])),
        (
            "dictionary",
            .dictionary([
                "int": .integer(1), "nested": .dictionary(["date": .date(Date(timeIntervalSinceReferenceDate: 0))]),
                "$dollar": .string("kept"), "list": .array([.data(Data([1]))]),
            ])
        ),
    ]

    /// Each kind as a setting of its own (inline where a typed encoder puts it), as an array
    /// element and as a dictionary value (always an object there).
    @Test(arguments: everyKind)
    func everyStoredValueKindRoundTrips(name: String, value: StoredValue) throws {
        let settings: [String: StoredValue] = [
            "field": value, "inArray": .array([value, value]), "inDictionary": .dictionary(["key": value]),
        ]
        let read = try StoredSetContents(KeyedArchiveWriter.archive(schemaVersion: 0, settings: settings))
        #expect(read.settings == settings, "\(name)")
    }

    @Test func theRootObjectHoldsTheVersionsAndOneFieldPerSetting() throws {
        let settings: [String: StoredValue] = [
            "flag": .bool(true), "count": .integer(3), "level": .float(0.5), "ratio": .double(2), "name": .string("x"),
        ]
        let data = KeyedArchiveWriter.archive(schemaVersion: -7, writeID: 42, settings: settings)
        let read = try StoredSetContents(data)
        #expect(read.formatVersion == 2)
        #expect(read.schemaVersion == -7)
        #expect(read.settings == settings)
        var reader = try KeyedArchiveReader(data)
        let root = try #require(try reader.objectDescription(uid: reader.rootUID))
        #expect(root.className == ArchiveFormat.rootClassName)
        #expect(
            Set(root.fields.keys) == [
                "$formatVersion", "$schemaVersion", "$writeID", "flag", "count", "level", "ratio", "name",
            ])
        #expect(try reader.root().writeID == 42)
        // Numbers and Booleans inline, as encode(_:forKey:) stores them; anything else a reference.
        for name in ["$formatVersion", "$schemaVersion", "$writeID", "flag", "count", "level", "ratio"] {
            #expect(try reader.referencedUID(inField: root.fields[name]!) == nil, "\(name)")
        }
        let nameUID = try #require(try reader.referencedUID(inField: root.fields["name"]!))
        #expect(try reader.value(uid: nameUID, depth: 0) == .string("x"))
        let extremes = try StoredSetContents(KeyedArchiveWriter.archive(schemaVersion: .max, settings: [:]))
        #expect(extremes.schemaVersion == .max)
        #expect(extremes.settings.isEmpty)
    }

    @Test func namesBeginningWithDollarAreEscapedWithOneMore() throws {
        let settings: [String: StoredValue] = [
            "$odd": .integer(1), "$$two": .string("x"), "$formatVersion": .integer(9), "plain": .bool(true),
        ]
        let data = KeyedArchiveWriter.archive(schemaVersion: 0, settings: settings)
        var reader = try KeyedArchiveReader(data)
        let root = try #require(try reader.objectDescription(uid: reader.rootUID))
        #expect(
            Set(root.fields.keys) == [
                "$formatVersion", "$schemaVersion", "$writeID", "$$odd", "$$$two", "$$formatVersion", "plain",
            ])
        let read = try StoredSetContents(data)
        #expect(read.settings == settings)
        #expect(read.formatVersion == 2)
        // A field with one `$` is the archiver's and no setting.
        var archive = HandMadeArchive()
        let handMade = archive.object(
            ArchiveFormat.rootClassName, ["$reserved": .plain(.integer(1)), "$$kept": .plain(.integer(2))])
        #expect(try StoredSetContents(archive.finish(root: handMade)).settings == ["$kept": .integer(2)])
    }

    @Test func equalValuesAreArchivedOnce() throws {
        let text = String(repeating: "shared ", count: 100)
        let once = KeyedArchiveWriter.archive(schemaVersion: 0, settings: ["a": .string(text)])
        let thrice = KeyedArchiveWriter.archive(
            schemaVersion: 0, settings: ["a": .string(text), "b": .array([.string(text), .string(text)])])
        #expect(thrice.count < once.count + 100)
        #expect(
            try StoredSetContents(thrice).settings == [
                "a": .string(text), "b": .array([.string(text), .string(text)]),
            ])
    }

    // MARK: Foundation

    @Test func foundationsUnarchiverReadsWhatTheWriterWrites() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let data = KeyedArchiveWriter.archive(
            schemaVersion: 0,
            settings: [
                "flag": .bool(true), "count": .integer(-3), "level": .float(0.5), "ratio": .double(2.5),
                "name": .string("Grüße"), "bytes": .data(Data([1, 2])), "nothing": .null,
                "when": .date(Date(timeIntervalSinceReferenceDate: 100)),
                "link": .url(URL(string: "https://example.com/x")!), "id": .uuid(uuid),
                "list": .array([.integer(1), .string("a")]), "tags": .set([.string("t")]),
                "table": .dictionary(["k": .double(1.5)]), "huge": .unsignedInteger(.max),
            ])
        var plan: [String: FoundationField.Kind] = ["flag": .bool, "count": .int64, "level": .float, "ratio": .double]
        for name in ["name", "bytes", "nothing", "when", "link", "id", "list", "tags", "table", "huge"] {
            plan[name] = .object
        }
        let fields = try FoundationSetReader.read(data, decoding: plan)
        #expect(fields["flag"] as? Bool == true)
        #expect(fields["count"] as? Int64 == -3)
        #expect(fields["level"] as? Float == 0.5)
        #expect(fields["ratio"] as? Double == 2.5)
        #expect(fields["name"] as? String == "Grüße")
        #expect(fields["bytes"] as? Data == Data([1, 2]))
        #expect(fields["nothing"] is NSNull)
        #expect(fields["when"] as? Date == Date(timeIntervalSinceReferenceDate: 100))
        #expect((fields["link"] as? URL)?.absoluteString == "https://example.com/x")
        #expect((fields["id"] as? NSUUID)?.uuidString == uuid.uuidString)
        #expect((fields["list"] as? NSArray)?.isEqual(to: [1, "a"]) == true)
        #expect((fields["tags"] as? NSSet)?.isEqual(to: Set(["t"])) == true)
        let table = try #require(fields["table"] as? NSDictionary)
        #expect(table.count == 1)
        #expect((table.object(forKey: NSString(string: "k")) as? NSNumber)?.doubleValue == 1.5)
        #expect((fields["huge"] as? NSNumber)?.uint64Value == .max)
        // And its property-list layer is what Foundation's archiver writes around the objects.
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        #expect((plist["$version"] as? NSNumber)?.intValue == 100_000)
        #expect((plist["$objects"] as? [Any])?.first as? String == "$null")
    }

    @Test func theReaderReadsWhatFoundationsArchiverWrites() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let data = try FoundationSetWriter.archive([
            "flag": .bool(true), "count": .int64(-3), "level": .float(0.5), "ratio": .double(2.5),
            "name": .object(NSString(string: "Grüße")), "bytes": .object(NSData(data: Data([1, 2]))),
            "nothing": .object(NSNull()), "when": .object(NSDate(timeIntervalSinceReferenceDate: 100)),
            "link": .object(NSURL(string: "https://example.com/x")!),
            "id": .object(NSUUID(uuidString: uuid.uuidString)!),
            "list": .object(NSArray(array: [NSNumber(value: 1), NSString(string: "a")])),
            "tags": .object(NSSet(array: [NSString(string: "t")])),
            "table": .object(NSDictionary(dictionary: ["k": NSNumber(value: 1.5)])),
            "huge": .object(NSNumber(value: UInt64.max)),
        ])
        let read = try StoredSetContents(data)
        #expect(read.formatVersion == nil)
        let expected: [String: StoredValue] = [
            "flag": .bool(true), "count": .integer(-3), "level": .float(0.5), "ratio": .double(2.5),
            "name": .string("Grüße"), "bytes": .data(Data([1, 2])), "nothing": .null,
            "when": .date(Date(timeIntervalSinceReferenceDate: 100)),
            "link": .url(URL(string: "https://example.com/x")!), "id": .uuid(uuid),
            "list": .array([.integer(1), .string("a")]), "tags": .set([.string("t")]),
            "table": .dictionary(["k": .double(1.5)]), "huge": .unsignedInteger(.max),
        ]
        for (name, value) in expected {
            #expect(read.settings[name] == value, "\(name)")
        }
        #expect(read.settings.count == expected.count)
    }

    // MARK: Accepted variants

    @Test func variantsOtherArchiversWriteAreAccepted() throws {
        func value(_ build: (inout HandMadeArchive) -> UInt32) throws -> StoredValue? {
            try StoredSetContents(Self.holding(build)).settings["value"]
        }
        #expect(
            try value { $0.object("NSDate", ["NS.time": .plain(.float(2))]) }
                == .date(.init(timeIntervalSinceReferenceDate: 2)))
        #expect(
            try value { $0.object("NSDate", ["NS.time": .plain(.integer(3))]) }
                == .date(.init(timeIntervalSinceReferenceDate: 3)))
        #expect(try value { $0.object("NSMutableString", ["NS.string": .plain(.string("m"))]) } == .string("m"))
        #expect(try value { $0.object("NSString", ["NS.string": .plain(.string("s"))]) } == .string("s"))
        #expect(try value { $0.object("NSMutableData", ["NS.data": .plain(.data(Data([9])))]) } == .data(Data([9])))
        #expect(try value { $0.object("NSMutableArray", ["NS.objects": .references([])]) } == .array([]))
        #expect(try value { $0.object("NSMutableSet", ["NS.objects": .references([])]) } == .set([]))
        #expect(try value { $0.object("NSMutableDictionary", [:]) } == .dictionary([:]))
        #expect(try value { $0.object("NSNull", [:]) } == .null)
        #expect(try value { _ in 0 } == .null)
        let relative = try value { archive in
            let baseString = archive.add(.string("https://example.com/dir/"))
            let base = archive.object("NSURL", ["NS.base": .reference(0), "NS.relative": .reference(baseString)])
            let file = archive.add(.string("file.txt"))
            return archive.object("NSURL", ["NS.base": .reference(base), "NS.relative": .reference(file)])
        }
        #expect(relative == .url(URL(string: "https://example.com/dir/file.txt")!))
        #expect(try StoredSetContents(Self.inline(.data(Data([7])))).settings["value"] == .data(Data([7])))
        #expect(try StoredSetContents(Self.inline(.unsignedInteger(.max))).settings["value"] == .unsignedInteger(.max))
    }

    /// The depth limit counts the levels below the root object: 64 nested arrays load, 65 do not.
    @Test func nestingIsAllowedUpToTheLimitAndNoDeeper() throws {
        func nested(_ levels: Int) -> Data {
            Self.holding { archive in
                var inner = archive.object("NSArray", ["NS.objects": .references([])])
                for _ in 1..<levels { inner = archive.object("NSArray", ["NS.objects": .references([inner])]) }
                return inner
            }
        }
        #expect(Self.refusal(nested(ArchiveFormat.maximumDepth)) == nil)
        #expect(Self.refusal(nested(ArchiveFormat.maximumDepth + 1))?.contains("nested deeper than 64 levels") == true)
    }

    // MARK: Refusals

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let data: Data
        let message: String
        var testDescription: String { name }
    }

    static let frameRefusals: [Refusal] = {
        let noRoot = "the archive has no valid root object"
        let notKeyed = "not an NSKeyedArchiver archive"
        let noObjects = "the archive has no $objects array"
        let notAString = "expected a string at object"
        return [
            Refusal(
                name: "root not a dictionary", data: PropertyListTree.array([]).serialized,
                message: "its root is not a dictionary"),
            Refusal(
                name: "key of the top dictionary not a string",
                data: frame { writer in [(.integer(1), writer.add(.integer(2)))] }, message: notAString),
            Refusal(name: "no $archiver", data: frame(archiver: nil), message: notKeyed),
            Refusal(name: "another $archiver", data: frame(archiver: .string("NSArchiver")), message: notKeyed),
            Refusal(name: "$archiver not a string", data: frame(archiver: .integer(1)), message: notAString),
            Refusal(name: "no $objects", data: frame(objects: nil), message: noObjects),
            Refusal(name: "empty $objects", data: frame(objects: []), message: noObjects),
            Refusal(
                name: "$objects not an array",
                data: frame { writer in
                    [
                        (.string("$archiver"), writer.add(.string("NSKeyedArchiver"))),
                        (.string("$objects"), writer.add(.string("objects"))),
                    ]
                }, message: noObjects),
            Refusal(name: "no $top", data: frame(top: nil), message: noRoot),
            Refusal(name: "$top without root", data: frame(top: [(.string("other"), .uid(1))]), message: noRoot),
            Refusal(name: "$top key not a string", data: frame(top: [(.integer(0), .uid(1))]), message: notAString),
            Refusal(name: "root not a UID", data: frame(top: [(.string("root"), .integer(1))]), message: noRoot),
            Refusal(name: "root UID out of range", data: frame(top: [(.string("root"), .uid(2))]), message: noRoot),
            Refusal(
                name: "$top not a dictionary",
                data: frame { writer in
                    [
                        (.string("$archiver"), writer.add(.string("NSKeyedArchiver"))),
                        (.string("$objects"), writer.add(.array([writer.add(.string("$null"))]))),
                        (.string("$top"), writer.add(.array([]))),
                    ]
                }, message: noRoot),
            Refusal(
                name: "root the $null object", data: frame(top: [(.string("root"), .uid(0))]),
                message: "object reference 0 does not name an object"),
            Refusal(name: "root a plain string", data: frame(), message: "the archive's root is not an object"),
            Refusal(
                name: "root a property-list array", data: frame(objects: [.string("$null"), .array([])]),
                message: "object 1 is not a valid archived object"),
        ]
    }()

    static let rootRefusals: [Refusal] = {
        var noSettings = HandMadeArchive()
        let noSettingsRoot = noSettings.dictionary(["formatVersion": noSettings.add(.integer(1))])
        var stringSettings = HandMadeArchive()
        let stringSettingsRoot = stringSettings.dictionary(["settings": stringSettings.add(.string("x"))])
        var arraySettings = HandMadeArchive()
        let array = arraySettings.object("NSArray", ["NS.objects": .references([])])
        let arraySettingsRoot = arraySettings.dictionary(["settings": array])
        var otherClass = HandMadeArchive()
        let otherClassRoot = otherClass.object("NSDate", ["NS.time": .plain(.double(5))])
        var schema = HandMadeArchive()
        let schemaRoot = schema.object(ArchiveFormat.rootClassName, ["$schemaVersion": .plain(.string("7"))])
        var format = HandMadeArchive()
        let formatRoot = format.object(ArchiveFormat.rootClassName, ["$formatVersion": .plain(.double(2))])
        var classless = HandMadeArchive()
        let classlessRoot = classless.add(.dictionary(keys: [], values: []))
        return [
            Refusal(
                name: "format 1 without settings", data: noSettings.finish(root: noSettingsRoot),
                message: "the archive has no settings dictionary"),
            Refusal(
                name: "format 1 settings a string", data: stringSettings.finish(root: stringSettingsRoot),
                message: "expected a dictionary object"),
            Refusal(
                name: "format 1 settings an array", data: arraySettings.finish(root: arraySettingsRoot),
                message: "expected an NSDictionary, found NSArray"),
            Refusal(
                name: "root of another class", data: otherClass.finish(root: otherClassRoot),
                message: "the archive's root is an object of class NSDate, not a settings set"),
            Refusal(
                name: "$schemaVersion a string", data: schema.finish(root: schemaRoot),
                message: "$schemaVersion is not an integer"),
            Refusal(
                name: "$formatVersion a real", data: format.finish(root: formatRoot),
                message: "$formatVersion is not an integer"),
            Refusal(
                name: "root without $class", data: classless.finish(root: classlessRoot),
                message: "object has no $class"),
        ]
    }()

    static let valueRefusals: [Refusal] = {
        let invalidObject = "is not a valid archived object"
        let cycle = "the archive's objects refer to each other in a cycle"
        return [
            Refusal(
                name: "$class not a reference",
                data: holding { $0.object("NSArray", ["$class": .plain(.string("NSArray"))]) },
                message: "expected an object reference"),
            Refusal(
                name: "$class out of range",
                data: holding { $0.object("NSArray", ["$class": .reference(999)]) },
                message: "object reference 999 is out of range"),
            Refusal(
                name: "class description a string",
                data: holding { archive in
                    let name = archive.add(.string("NSArray"))
                    return archive.object("NSArray", ["$class": .reference(name)])
                }, message: "class description is not a dictionary"),
            Refusal(
                name: "class description without $classname",
                data: holding { archive in
                    let description = archive.add(.dictionary(keys: [], values: []))
                    return archive.object("NSArray", ["$class": .reference(description)])
                }, message: "class description has no $classname"),
            Refusal(
                name: "$classname not a string",
                data: holding { archive in
                    let key = archive.plistIndex(of: .string("$classname"))
                    let number = archive.plistIndex(of: .integer(1))
                    let description = archive.add(.dictionary(keys: [key], values: [number]))
                    return archive.object("NSArray", ["$class": .reference(description)])
                }, message: "expected a string at object"),
            Refusal(
                name: "object without $class", data: holding { $0.add(.dictionary(keys: [], values: [])) },
                message: "object has no $class"),
            Refusal(
                name: "more keys than values",
                data: holding { archive in
                    let key = archive.add(.string("k"))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([])])
                }, message: "dictionary has 1 keys but 0 values"),
            Refusal(
                name: "dictionary key not a string",
                data: holding { archive in
                    let key = archive.add(.integer(1))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([key])])
                }, message: "dictionary key is not a string"),
            Refusal(
                name: "NS.objects not an array",
                data: holding { $0.object("NSArray", ["NS.objects": .plain(.integer(1))]) },
                message: "expected an array of object references"),
            Refusal(
                name: "NS.objects element not a reference",
                data: holding { archive in
                    let element = archive.plistIndex(of: .integer(1))
                    return archive.object("NSArray", ["NS.objects": .plain(.array([element]))])
                }, message: "expected an object reference"),
            Refusal(
                name: "reference out of range",
                data: holding { $0.object("NSArray", ["NS.objects": .references([9_999])]) },
                message: "object reference 9999 is out of range"),
            Refusal(
                name: "a property-list array as an object", data: holding { $0.add(.array([])) },
                message: invalidObject),
            Refusal(name: "a date as an object", data: holding { $0.add(.date(0)) }, message: invalidObject),
            Refusal(name: "a UID as an object", data: holding { $0.add(.uid(0)) }, message: invalidObject),
            Refusal(
                name: "a cycle through an array",
                data: holding { archive in
                    let array = archive.reserve()
                    return archive.object("NSArray", ["NS.objects": .references([array])], at: array)
                }, message: cycle),
            Refusal(
                name: "a cycle through a dictionary",
                data: holding { archive in
                    let dictionary = archive.reserve()
                    let key = archive.add(.string("self"))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([dictionary])],
                        at: dictionary)
                }, message: cycle),
            Refusal(
                name: "a graph that expands exponentially",
                data: holding { archive in
                    var level = archive.object("NSArray", ["NS.objects": .references([])])
                    for _ in 0..<40 { level = archive.object("NSArray", ["NS.objects": .references([level, level])]) }
                    return level
                }, message: "the archive expands to more objects than it can hold"),
            Refusal(
                name: "NSDate without NS.time", data: holding { $0.object("NSDate", [:]) },
                message: "NSDate has no NS.time"),
            Refusal(
                name: "NSDate with a string time",
                data: holding { $0.object("NSDate", ["NS.time": .plain(.string("now"))]) },
                message: "NSDate has no valid NS.time"),
            Refusal(
                name: "NSDate at NaN", data: holding { $0.object("NSDate", ["NS.time": .plain(.double(.nan))]) },
                message: "NSDate has a time that is not a finite number"),
            Refusal(
                name: "NSURL without NS.relative", data: holding { $0.object("NSURL", [:]) },
                message: "NSURL has no NS.relative string"),
            Refusal(
                name: "NSURL with a number as NS.relative",
                data: holding { archive in
                    let number = archive.add(.integer(1))
                    return archive.object("NSURL", ["NS.relative": .reference(number)])
                }, message: "NSURL has no NS.relative string"),
            Refusal(
                name: "NSURL with a string as NS.base",
                data: holding { archive in
                    let string = archive.add(.string("https://example.com/"))
                    return archive.object("NSURL", ["NS.base": .reference(string), "NS.relative": .reference(string)])
                }, message: "NSURL has an NS.base that is not a URL"),
            Refusal(
                name: "NSURL with an empty string",
                data: holding { archive in
                    let string = archive.add(.string(""))
                    return archive.object("NSURL", ["NS.relative": .reference(string)])
                }, message: "NSURL string is not a valid URL"),
            Refusal(
                name: "NSUUID without bytes", data: holding { $0.object("NSUUID", [:]) },
                message: "NSUUID has no 16-byte NS.uuidbytes"),
            Refusal(
                name: "NSUUID of 15 bytes",
                data: holding { $0.object("NSUUID", ["NS.uuidbytes": .plain(.data(Data(count: 15)))]) },
                message: "NSUUID has no 16-byte NS.uuidbytes"),
            Refusal(
                name: "NSString without NS.string", data: holding { $0.object("NSString", [:]) },
                message: "NSString has no NS.string"),
            Refusal(
                name: "NSMutableString with data",
                data: holding { $0.object("NSMutableString", ["NS.string": .plain(.data(Data()))]) },
                message: "NSMutableString has no NS.string"),
            Refusal(
                name: "NSData without NS.data", data: holding { $0.object("NSData", [:]) },
                message: "NSData has no NS.data"),
            Refusal(
                name: "a class no setting is stored as", data: holding { $0.object("NSValue", [:]) },
                message: "class NSValue is not one a setting can be stored as"),
            Refusal(
                name: "an inline string", data: inline(.string("inline")),
                message: "a field holds an inline value that is not a number, Boolean or data"),
            Refusal(
                name: "an inline array", data: inline(.array([])),
                message: "a field holds an inline value that is not a number, Boolean or data"),
            Refusal(
                name: "an inline date", data: inline(.date(0)),
                message: "a field holds an inline value that is not a number, Boolean or data"),
        ]
    }()

    @Test(arguments: frameRefusals + rootRefusals + valueRefusals)
    func eachRefusalIsReached(_ refusal: Refusal) {
        let error = Self.refusal(refusal.data)
        #expect(error?.contains(refusal.message) == true, "\(refusal.name): \(error ?? "read without an error")")
    }

    /// The frame the refusals above break, whole: it is read up to its root, a plain string.
    @Test func theFrameUnderTheRefusalsIsAKeyedArchive() throws {
        let reader = try KeyedArchiveReader(Self.frame())
        #expect(reader.rootUID == 1)
    }
}
