import Foundation
import Testing

@testable import AppSettings

/// `BinaryPropertyListWriter` and `BinaryPropertyListReader` on their own: every object kind
/// round-trips, Foundation reads what the writer writes and the reader reads what Foundation
/// writes, and each refusal of the reader is reached by an input made for it.
@Suite("Binary property list")
struct BinaryPropertyListTests {
    /// The marker byte of the first object (the one right after the header).
    private static func firstMarker(_ data: Data) -> UInt8 { data[data.startIndex + 8] }

    // MARK: Round trips

    static let everyKind: [(String, PropertyListTree)] = [
        ("false", .bool(false)),
        ("true", .bool(true)),
        ("zero", .integer(0)),
        ("negative", .integer(-42)),
        ("Float", .float(1.25)),
        ("negative Float", .float(-.greatestFiniteMagnitude)),
        ("Double", .double(.pi)),
        ("Double infinity", .double(-.infinity)),
        ("date", .date(-978_307_200)),
        ("data", .data(Data([0, 1, 2, 0xFF]))),
        ("empty data", .data(Data())),
        ("long data", .data(Data(repeating: 7, count: 300))),
        ("ASCII string", .string("Orion")),
        ("empty string", .string("")),
        ("non-ASCII string", .string("Élan 日本 🎉")),
        ("long non-ASCII string", .string(String(repeating: "ü", count: 300))),
        ("UID", .uid(0)),
        ("wide UID", .uid(0x1_0000_0000)),
        ("empty array", .array([])),
        ("empty set", .set([])),
        ("empty dictionary", .dictionary([])),
        ("array", .array([.integer(1), .string("two"), .array([.bool(true)]), .dictionary([])])),
        ("set", .set([.integer(1), .integer(2)])),
        (
            "dictionary",
            .dictionary([
                (.string("a"), .integer(1)), (.string("nested"), .dictionary([(.string("b"), .data(Data([1])))])),
                (.string("uid"), .uid(3)),
            ])
        ),
        ("fifteen elements", .array((0..<15).map { .integer($0) })),
        ("many elements", .array((0..<300).map { .string("s\($0)") })),
    ]

    @Test(arguments: everyKind)
    func everyObjectKindRoundTrips(name: String, tree: PropertyListTree) throws {
        #expect(try PropertyListTree(reading: tree.serialized) == tree, "\(name)")
    }

    /// Each integer in the smallest of 1, 2, 4 or 8 bytes (8 for negatives), as Foundation writes it.
    @Test(arguments: [
        (Int64(0), UInt8(0x10)), (0xFF, 0x10), (0x100, 0x11), (0xFFFF, 0x11), (0x1_0000, 0x12),
        (0xFFFF_FFFF, 0x12), (0x1_0000_0000, 0x13), (.max, 0x13), (-1, 0x13), (.min, 0x13),
    ])
    func integersOfEveryWidthRoundTrip(value: Int64, marker: UInt8) throws {
        let data = PropertyListTree.integer(value).serialized
        #expect(Self.firstMarker(data) == marker)
        #expect(try PropertyListTree(reading: data) == .integer(value))
    }

    @Test func unsignedIntegersAboveInt64MaxTakeSixteenBytes() throws {
        for value in [UInt64(Int64.max) + 1, .max] {
            let data = PropertyListTree.unsignedInteger(value).serialized
            #expect(Self.firstMarker(data) == 0x14)
            #expect(try PropertyListTree(reading: data) == .unsignedInteger(value))
        }
        // Smaller unsigned values are plain integers.
        #expect(try PropertyListTree(reading: PropertyListTree.unsignedInteger(7).serialized) == .integer(7))
        // A 16-byte negative integer (high half all ones) as another writer might store it.
        let negative = RawPropertyList([[0x14] + [UInt8](repeating: 0xFF, count: 15) + [0xFE]]).data
        #expect(try PropertyListTree(reading: negative) == .integer(-2))
    }

    @Test func stringsAreASCIIOrUTF16() throws {
        #expect(Self.firstMarker(PropertyListTree.string("abc").serialized) == 0x53)
        #expect(Self.firstMarker(PropertyListTree.string("é").serialized) == 0x61)
        // A surrogate pair is two UTF-16 units.
        #expect(Self.firstMarker(PropertyListTree.string("🎉").serialized) == 0x62)
        // From 15 units on, the length follows the marker as an integer.
        let long = PropertyListTree.string(String(repeating: "x", count: 15)).serialized
        #expect(Array(long[8..<10]) == [0x5F, 0x10])
        // A lone surrogate, which no Swift string holds, reads as the replacement character.
        let lone = RawPropertyList([[0x61, 0xD8, 0x00]]).data
        #expect(try PropertyListTree(reading: lone) == .string("\u{FFFD}"))
    }

    @Test func equalScalarsAreStoredOnceAndSharedObjectsReadAlike() throws {
        var writer = BinaryPropertyListWriter()
        let string = writer.add(.string("shared"))
        #expect(writer.add(.string("shared")) == string)
        #expect(writer.add(.integer(5)) == writer.add(.integer(5)))
        #expect(writer.add(.double(0.5)) == writer.add(.double(0.5)))
        #expect(writer.add(.float(0.5)) != writer.add(.double(0.5)))
        #expect(writer.add(.integer(1)) != writer.add(.bool(true)))
        // Data and containers are never merged.
        #expect(writer.add(.data(Data([1]))) != writer.add(.data(Data([1]))))
        let inner = writer.add(.array([string, string]))
        let top = writer.add(.array([inner, inner, string]))
        let data = writer.serialized(top: top)
        let reader = try BinaryPropertyListReader(data)
        guard case .array(let elements) = try reader.object(at: reader.topObject) else {
            Issue.record("the top object is not an array")
            return
        }
        #expect(elements == [inner, inner, string])
        let tree = try PropertyListTree(reading: data)
        #expect(
            tree
                == .array([
                    .array([.string("shared"), .string("shared")]), .array([.string("shared"), .string("shared")]),
                    .string("shared"),
                ]))
    }

    @Test func referenceAndOffsetSizesGrowWithTheList() throws {
        func sizes(_ data: Data) -> (offset: UInt8, reference: UInt8) {
            (data[data.endIndex - 26], data[data.endIndex - 25])
        }
        #expect(sizes(PropertyListTree.array([.integer(1)]).serialized) == (1, 1))
        let many = PropertyListTree.array((0..<300).map { .integer($0) })
        #expect(sizes(many.serialized) == (2, 2))
        #expect(try PropertyListTree(reading: many.serialized) == many)
        let wide = PropertyListTree.array([.data(Data(repeating: 1, count: 70_000)), .integer(-1)])
        #expect(sizes(wide.serialized) == (4, 1))
        #expect(try PropertyListTree(reading: wide.serialized) == wide)
        let manyObjects = PropertyListTree.array((0..<70_000).map { .integer($0) })
        #expect(sizes(manyObjects.serialized) == (4, 4))
        #expect(try PropertyListTree(reading: manyObjects.serialized) == manyObjects)
    }

    @Test func eightByteOffsetsAndReferencesAreRead() throws {
        var list = RawPropertyList([
            [0xA2] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 2], [0x10, 0x07], [0x51, 0x41],
        ])
        list.offsetSize = 8
        list.referenceSize = 8
        #expect(try PropertyListTree(reading: list.data) == .array([.integer(7), .string("A")]))
        list.offsetSize = 2
        list.referenceSize = 8
        #expect(try PropertyListTree(reading: list.data) == .array([.integer(7), .string("A")]))
    }

    // MARK: Foundation

    /// Every kind Foundation's property lists have (no UIDs, no sets), as one dictionary.
    static let foundationKinds = PropertyListTree.dictionary([
        (.string("false"), .bool(false)),
        (.string("true"), .bool(true)),
        (.string("small"), .integer(3)),
        (.string("medium"), .integer(0x1234)),
        (.string("large"), .integer(0x1234_5678_9ABC)),
        (.string("negative"), .integer(-7)),
        (.string("minimum"), .integer(.min)),
        (.string("maximum"), .integer(.max)),
        (.string("double"), .double(2.5)),
        (.string("date"), .date(700_000_000.5)),
        (.string("data"), .data(Data([0xDE, 0xAD]))),
        (.string("ascii"), .string("plain")),
        (.string("unicode"), .string("Grüße, 世界 🎉")),
        (.string("empty array"), .array([])),
        (.string("empty dictionary"), .dictionary([])),
        (.string("array"), .array([.integer(1), .string("two"), .array([.double(3)])])),
        (.string("dictionary"), .dictionary([(.string("inner"), .string("value"))])),
        (.string("long"), .string(String(repeating: "long ", count: 100))),
    ])

    @Test func foundationReadsWhatTheWriterWrites() throws {
        let read = try PropertyListSerialization.propertyList(from: Self.foundationKinds.serialized, format: nil)
        let dictionary = try #require(read as? [String: Any])
        let expected = NSDictionary(dictionary: Self.foundationKinds.foundationObject as! [String: Any])
        #expect(expected.isEqual(NSDictionary(dictionary: dictionary)))
        #expect(dictionary["unicode"] as? String == "Grüße, 世界 🎉")
        #expect(dictionary["date"] as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        #expect(dictionary["data"] as? Data == Data([0xDE, 0xAD]))
        #expect((dictionary["minimum"] as? NSNumber)?.int64Value == .min)
        #expect(dictionary["true"] as? Bool == true)
    }

    @Test func foundationReadsSixteenByteUnsignedIntegers() throws {
        let tree = PropertyListTree.array([.unsignedInteger(.max), .unsignedInteger(UInt64(Int64.max) + 1)])
        let read = try PropertyListSerialization.propertyList(from: tree.serialized, format: nil)
        let numbers = try #require(read as? [NSNumber])
        #expect(numbers.map(\.uint64Value) == [.max, UInt64(Int64.max) + 1])
    }

    @Test func theReaderReadsWhatFoundationWrites() throws {
        let object = Self.foundationKinds.foundationObject
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let tree = try PropertyListTree(reading: data)
        let read = NSDictionary(dictionary: tree.foundationObject as? [String: Any] ?? [:])
        #expect(read.isEqual(NSDictionary(dictionary: object as! [String: Any])))
        // Foundation may order a dictionary's keys as it likes; compare by key.
        guard case .dictionary(let entries) = tree else {
            Issue.record("Foundation's top object was read as \(tree)")
            return
        }
        var byKey: [String: PropertyListTree] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key else { continue }
            byKey[key] = entry.value
        }
        #expect(byKey.count == entries.count)
        #expect(byKey["unicode"] == .string("Grüße, 世界 🎉"))
        #expect(byKey["date"] == .date(700_000_000.5))
        #expect(byKey["minimum"] == .integer(.min))
        #expect(byKey["maximum"] == .integer(.max))
        #expect(byKey["true"] == .bool(true))
        #expect(byKey["empty dictionary"] == .dictionary([]))
    }

    @Test func theReaderReadsFoundationsUnsignedAndFloatNumbers() throws {
        let object: [Any] = [NSNumber(value: UInt64.max), NSNumber(value: Float(1.5)), NSNumber(value: UInt8(200))]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        guard case .array(let elements) = try PropertyListTree(reading: data) else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 3)
        #expect(elements.first == .unsignedInteger(.max))
        #expect(elements.dropFirst().first == .float(1.5) || elements.dropFirst().first == .double(1.5))
        #expect(elements.last == .integer(200))
    }
}
