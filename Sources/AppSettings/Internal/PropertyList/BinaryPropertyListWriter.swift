import Foundation

/// Writes a binary property list (`bplist00`) from a flat table of objects.
///
/// Objects are added bottom-up: a container is added after its elements and refers to them by
/// the index `add` returned. Equal scalars are stored once. Nothing here allocates per byte:
/// the output is one `[UInt8]` sized up front from the lengths that `add` already knows.
struct BinaryPropertyListWriter {
    typealias Object = BinaryPropertyListObject

    private enum ScalarKey: Hashable {
        case integer(Int64)
        case unsignedInteger(UInt64)
        case float(UInt32)
        case double(UInt64)
        case string(String)
        case uid(UInt64)
    }

    private(set) var objects: [Object] = []
    private var uniqued: [ScalarKey: Int] = [:]
    // UIDs (an archive's references, small and dense) and Booleans are uniqued without hashing:
    // an archive adds a UID for every reference, and hashing was most of the writer's time.
    /// The index of the UID object of each value.
    private var uidIndices = DenseIndexTable()
    /// The index of `false` (0) and of `true` (1).
    private var boolIndices = DenseIndexTable()

    init(capacity: Int = 64) {
        objects.reserveCapacity(capacity)
        uniqued.reserveCapacity(capacity)
    }

    /// Adds an object and returns its index; scalars equal to one added before return that one.
    mutating func add(_ object: Object) -> Int {
        let key: ScalarKey?
        switch object {
        case .bool(let value):
            if let index = boolIndices[value ? 1 : 0] { return index }
            objects.append(object)
            boolIndices[value ? 1 : 0] = objects.count - 1
            return objects.count - 1
        case .uid(let value) where value < 1 << 20:
            if let index = uidIndices[Int(value)] { return index }
            objects.append(object)
            uidIndices[Int(value)] = objects.count - 1
            return objects.count - 1
        case .uid(let value): key = .uid(value)  // beyond the table: hashed
        case .integer(let value): key = .integer(value)
        case .unsignedInteger(let value): key = .unsignedInteger(value)
        case .float(let value): key = .float(value.bitPattern)
        case .double(let value): key = .double(value.bitPattern)
        case .string(let value): key = .string(value)
        case .date, .data, .array, .set, .dictionary: key = nil
        }
        if let key, let index = uniqued[key] { return index }
        objects.append(object)
        if let key { uniqued[key] = objects.count - 1 }
        return objects.count - 1
    }

    /// Serializes the table with `top` as the root object.
    func serialized(top: Int) -> Data {
        let count = objects.count
        let referenceSize = Self.byteCount(forUnsigned: UInt64(count))
        var output: [UInt8] = []
        output.reserveCapacity(64 + count * 16)
        output.append(contentsOf: Array("bplist00".utf8))
        var offsets = [Int]()
        offsets.reserveCapacity(count)
        for object in objects {
            offsets.append(output.count)
            Self.write(object, referenceSize: referenceSize, to: &output)
        }
        let offsetTableStart = output.count
        let offsetSize = Self.byteCount(forUnsigned: UInt64(offsetTableStart))
        for offset in offsets {
            output.appendBigEndian(UInt64(offset), size: offsetSize)
        }
        output.append(contentsOf: [0, 0, 0, 0, 0, 0])
        output.append(UInt8(offsetSize))
        output.append(UInt8(referenceSize))
        output.appendBigEndian(UInt64(count), size: 8)
        output.appendBigEndian(UInt64(top), size: 8)
        output.appendBigEndian(UInt64(offsetTableStart), size: 8)
        return Data(output)
    }

    private static func byteCount(forUnsigned value: UInt64) -> Int {
        switch value {
        case ..<0x100: 1
        case ..<0x1_0000: 2
        case ..<0x1_0000_0000: 4
        default: 8
        }
    }

    private static func writeMarker(_ type: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 15 {
            output.append(type | UInt8(count))
        } else {
            output.append(type | 0x0F)
            writeInteger(Int64(count), to: &output)
        }
    }

    private static func writeInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 {
            output.append(0x13)
            output.appendBigEndian(UInt64(bitPattern: value), size: 8)
            return
        }
        let size = byteCount(forUnsigned: UInt64(value))
        output.append(0x10 | UInt8(size.trailingZeroBitCount))
        output.appendBigEndian(UInt64(value), size: size)
    }

    private static func write(_ object: Object, referenceSize: Int, to output: inout [UInt8]) {
        switch object {
        case .bool(let value):
            output.append(value ? 0x09 : 0x08)
        case .integer(let value):
            writeInteger(value, to: &output)
        case .unsignedInteger(let value):
            if value <= UInt64(Int64.max) {
                writeInteger(Int64(value), to: &output)
            } else {
                // Values above Int64.max need the 16-byte form; its high half is zero.
                output.append(0x14)
                output.appendBigEndian(0, size: 8)
                output.appendBigEndian(value, size: 8)
            }
        case .float(let value):
            output.append(0x22)
            output.appendBigEndian(UInt64(value.bitPattern), size: 4)
        case .double(let value):
            output.append(0x23)
            output.appendBigEndian(value.bitPattern, size: 8)
        case .date(let value):
            output.append(0x33)
            output.appendBigEndian(value.bitPattern, size: 8)
        case .data(let value):
            writeMarker(0x40, count: value.count, to: &output)
            output.append(contentsOf: value)
        case .string(let value):
            writeString(value, to: &output)
        case .uid(let value):
            let size = byteCount(forUnsigned: value)
            output.append(0x80 | UInt8(size - 1))
            output.appendBigEndian(value, size: size)
        case .array(let elements):
            writeMarker(0xA0, count: elements.count, to: &output)
            for element in elements { output.appendBigEndian(UInt64(element), size: referenceSize) }
        case .set(let elements):
            writeMarker(0xC0, count: elements.count, to: &output)
            for element in elements { output.appendBigEndian(UInt64(element), size: referenceSize) }
        case .dictionary(let keys, let values):
            writeMarker(0xD0, count: keys.count, to: &output)
            for key in keys { output.appendBigEndian(UInt64(key), size: referenceSize) }
            for value in values { output.appendBigEndian(UInt64(value), size: referenceSize) }
        }
    }

    private static func writeString(_ value: String, to output: inout [UInt8]) {
        var value = value
        let isASCII = value.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } }
        if isASCII {
            value.withUTF8 { utf8 in
                writeMarker(0x50, count: utf8.count, to: &output)
                output.append(contentsOf: utf8)
            }
        } else {
            let units = Array(value.utf16)
            writeMarker(0x60, count: units.count, to: &output)
            for unit in units { output.appendBigEndian(UInt64(unit), size: 2) }
        }
    }
}

extension [UInt8] {
    /// Appends the `size` low bytes of `value`, the most significant first.
    mutating func appendBigEndian(_ value: UInt64, size: Int) {
        var shift = (size - 1) * 8
        while shift >= 0 {
            append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}

/// Small non-negative integers mapped to indices without hashing: an array, grown as needed.
struct DenseIndexTable {
    /// `-1`: no index for that key.
    private var indices: [Int] = []

    subscript(key: Int) -> Int? {
        get { key < indices.count && indices[key] >= 0 ? indices[key] : nil }
        set {
            if key >= indices.count {
                indices.append(contentsOf: repeatElement(-1, count: key + 1 - indices.count))
            }
            indices[key] = newValue ?? -1
        }
    }
}
