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
    static func refusal(_ data: Data) -> String? {
        do {
            _ = try StoredSetContents(data)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// A format-2 set whose one setting, `value`, refers to the object `build` adds.
    static func holding(_ build: (inout HandMadeArchive) -> UInt32) -> Data {
        var archive = HandMadeArchive()
        let value = build(&archive)
        let root = archive.object(ArchiveFormat.rootClassName, ["value": .reference(value)])
        return archive.finish(root: root)
    }

    /// A format-2 set whose one setting, `value`, holds `object` inline.
    static func inline(_ object: Object) -> Data {
        var archive = HandMadeArchive()
        let root = archive.object(ArchiveFormat.rootClassName, ["value": .plain(object)])
        return archive.finish(root: root)
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
}
