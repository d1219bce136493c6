import Foundation

@testable import AppSettings

/// A binary property list's object graph with references resolved, to compare what was written
/// with what was read.
indirect enum PropertyListTree: Equatable {
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case float(Float)
    case double(Double)
    case date(Double)
    case data(Data)
    case string(String)
    case uid(UInt64)
    case array([PropertyListTree])
    case set([PropertyListTree])
    case dictionary([(key: PropertyListTree, value: PropertyListTree)])

    static func == (lhs: PropertyListTree, rhs: PropertyListTree) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): left == right
        case (.integer(let left), .integer(let right)): left == right
        case (.unsignedInteger(let left), .unsignedInteger(let right)): left == right
        case (.float(let left), .float(let right)): left.bitPattern == right.bitPattern
        case (.double(let left), .double(let right)): left.bitPattern == right.bitPattern
        case (.date(let left), .date(let right)): left.bitPattern == right.bitPattern
        case (.data(let left), .data(let right)): left == right
        case (.string(let left), .string(let right)): left == right
        case (.uid(let left), .uid(let right)): left == right
        case (.array(let left), .array(let right)), (.set(let left), .set(let right)): left == right
        case (.dictionary(let left), .dictionary(let right)):
            left.count == right.count && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// Adds the tree to `writer` bottom-up and returns the index of its root.
    func add(to writer: inout BinaryPropertyListWriter) -> Int {
        switch self {
        case .bool(let value): writer.add(.bool(value))
        case .integer(let value): writer.add(.integer(value))
        case .unsignedInteger(let value): writer.add(.unsignedInteger(value))
        case .float(let value): writer.add(.float(value))
        case .double(let value): writer.add(.double(value))
        case .date(let value): writer.add(.date(value))
        case .data(let value): writer.add(.data(value))
        case .string(let value): writer.add(.string(value))
        case .uid(let value): writer.add(.uid(value))
        case .array(let elements): writer.add(.array(elements.map { $0.add(to: &writer) }))
        case .set(let elements): writer.add(.set(elements.map { $0.add(to: &writer) }))
        case .dictionary(let entries):
            writer.add(
                .dictionary(
                    keys: entries.map { $0.key.add(to: &writer) },
                    values: entries.map { $0.value.add(to: &writer) }
                )
            )
        }
    }

    /// The bytes of a property list holding this tree.
    var serialized: Data {
        var writer = BinaryPropertyListWriter()
        let top = add(to: &writer)
        return writer.serialized(top: top)
    }

    /// Reads the tree at `index`, following references no deeper than `depth` levels.
    init(_ reader: BinaryPropertyListReader, at index: Int, depth: Int = 32) throws {
        guard depth > 0 else { throw ArchiveFormatError("tree too deep") }
        switch try reader.object(at: index) {
        case .bool(let value): self = .bool(value)
        case .integer(let value): self = .integer(value)
        case .unsignedInteger(let value): self = .unsignedInteger(value)
        case .float(let value): self = .float(value)
        case .double(let value): self = .double(value)
        case .date(let value): self = .date(value)
        case .data(let value): self = .data(value)
        case .string(let value): self = .string(value)
        case .uid(let value): self = .uid(value)
        case .array(let elements): self = .array(try elements.map { try Self(reader, at: $0, depth: depth - 1) })
        case .set(let elements): self = .set(try elements.map { try Self(reader, at: $0, depth: depth - 1) })
        case .dictionary(let keys, let values):
            self = .dictionary(
                try zip(keys, values).map {
                    (try Self(reader, at: $0, depth: depth - 1), try Self(reader, at: $1, depth: depth - 1))
                })
        }
    }

    /// Reads a whole property list.
    init(reading data: Data) throws {
        let reader = try BinaryPropertyListReader(data)
        try self.init(reader, at: reader.topObject)
    }

    /// The Foundation property-list object for this tree (UIDs and sets have none).
    var foundationObject: Any {
        switch self {
        case .bool(let value): value
        case .integer(let value): value
        case .unsignedInteger(let value): value
        case .float(let value): value
        case .double(let value): value
        case .date(let value): Date(timeIntervalSinceReferenceDate: value)
        case .data(let value): value
        case .string(let value): value
        case .uid(let value): value
        case .array(let elements), .set(let elements): elements.map(\.foundationObject)
        case .dictionary(let entries):
            Dictionary(
                uniqueKeysWithValues: entries.map { entry -> (String, Any) in
                    guard case .string(let key) = entry.key else {
                        return ("\(entry.key)", entry.value.foundationObject)
                    }
                    return (key, entry.value.foundationObject)
                })
        }
    }
}

/// A binary property list laid out by hand: raw object bytes and a trailer whose every field
/// can be set, to build inputs no writer would produce.
struct RawPropertyList {
    var objects: [[UInt8]]
    var offsetSize = 1
    var referenceSize = 1
    var top: UInt64 = 0
    /// Replaces the object count the trailer states.
    var statedCount: UInt64?
    /// Replaces the offset-table start the trailer states.
    var statedTableStart: UInt64?
    /// Replaces offsets in the table, by object index.
    var statedOffsets: [Int: UInt64] = [:]

    init(_ objects: [[UInt8]]) {
        self.objects = objects
    }

    var data: Data {
        var output: [UInt8] = []
        output.append(contentsOf: Array("bplist00".utf8))
        var offsets: [UInt64] = []
        for object in objects {
            offsets.append(UInt64(output.count))
            output.append(contentsOf: object)
        }
        let tableStart = output.count
        for (index, offset) in offsets.enumerated() {
            output.appendBigEndian(statedOffsets[index] ?? offset, size: offsetSize)
        }
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        output.appendBigEndian(statedCount ?? UInt64(objects.count), size: 8)
        output.appendBigEndian(top, size: 8)
        output.appendBigEndian(statedTableStart ?? UInt64(tableStart), size: 8)
        return Data(output)
    }
}
