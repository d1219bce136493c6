import Foundation

/// Why bytes are not a binary property list this reader accepts (the archive layer above turns it
/// into an `ArchiveFormatError` with the same text).
struct PropertyListFormatError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Reads a binary property list (`bplist00`) defensively.
///
/// Every offset, count and reference is checked against the buffer before use, so no input can
/// read out of bounds, loop forever or allocate more than the input's size allows. Objects are
/// parsed one at a time on request; containers come back as indices of their elements, which
/// keeps reference cycles in the input from turning into recursion here.
struct BinaryPropertyListReader {
    typealias Object = BinaryPropertyListObject

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let offsetTableStart: Int
    let objectCount: Int
    let topObject: Int

    init(_ data: Data) throws(PropertyListFormatError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else {
            throw PropertyListFormatError("not a binary property list")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let tableStart = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
            throw PropertyListFormatError("property list trailer has invalid integer sizes")
        }
        guard count > 0, count < UInt64(bytes.count), top < count, tableStart >= 8,
            tableStart < UInt64(trailer),
            count * UInt64(offsetSize) <= UInt64(trailer) - tableStart
        else {
            throw PropertyListFormatError("property list trailer points outside the data")
        }
        self.bytes = bytes
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        self.objectCount = Int(count)
        self.topObject = Int(top)
        self.offsetTableStart = Int(tableStart)
    }

    private static func bigEndian(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in start..<(start + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    private func offset(of index: Int) throws(PropertyListFormatError) -> Int {
        guard index >= 0, index < objectCount else {
            throw PropertyListFormatError("object reference \(index) is out of range")
        }
        let offset = Self.bigEndian(bytes, at: offsetTableStart + index * offsetSize, size: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTableStart) else {
            throw PropertyListFormatError("object \(index) starts outside the object area")
        }
        return Int(offset)
    }

    /// Checks that `length` bytes from `start` lie inside the object area.
    private func checkRange(_ start: Int, _ length: Int) throws(PropertyListFormatError) {
        guard length >= 0, start <= offsetTableStart, length <= offsetTableStart - start else {
            throw PropertyListFormatError("object runs past the end of the object area")
        }
    }

    /// Reads the element count that follows a marker whose low nibble is 0xF.
    private func count(marker: UInt8, at position: inout Int) throws(PropertyListFormatError) -> Int {
        let low = Int(marker & 0x0F)
        if low != 0x0F { return low }
        try checkRange(position, 1)
        let intMarker = bytes[position]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw PropertyListFormatError("object length is not an integer")
        }
        let size = 1 << Int(intMarker & 0x0F)
        try checkRange(position + 1, size)
        let value = Self.bigEndian(bytes, at: position + 1, size: size)
        position += 1 + size
        guard value <= UInt64(offsetTableStart) else {
            throw PropertyListFormatError("object length \(value) is larger than the data")
        }
        return Int(value)
    }

    private func references(count: Int, at position: Int) throws(PropertyListFormatError) -> [Int] {
        try checkRange(position, count * referenceSize)
        var result = [Int]()
        result.reserveCapacity(count)
        var cursor = position
        for _ in 0..<count {
            let reference = Self.bigEndian(bytes, at: cursor, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw PropertyListFormatError("object reference \(reference) is out of range")
            }
            result.append(Int(reference))
            cursor += referenceSize
        }
        return result
    }

    /// Parses the object at `index`.
    func object(at index: Int) throws(PropertyListFormatError) -> Object {
        let start = try offset(of: index)
        let marker = bytes[start]
        var position = start + 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw PropertyListFormatError("unsupported property list marker \(marker)")
            }
        case 0x1:
            let exponent = Int(marker & 0x0F)
            guard exponent <= 4 else { throw PropertyListFormatError("integer of invalid size") }
            let size = 1 << exponent
            try checkRange(position, size)
            if size == 16 {
                let high = Self.bigEndian(bytes, at: position, size: 8)
                let low = Self.bigEndian(bytes, at: position + 8, size: 8)
                if high == 0 { return .unsignedInteger(low) }
                if high == UInt64.max, Int64(bitPattern: low) < 0 { return .integer(Int64(bitPattern: low)) }
                throw PropertyListFormatError("integer does not fit in 64 bits")
            }
            let raw = Self.bigEndian(bytes, at: position, size: size)
            return size == 8 ? .integer(Int64(bitPattern: raw)) : .integer(Int64(raw))
        case 0x2:
            switch marker & 0x0F {
            case 2:
                try checkRange(position, 4)
                return .float(Float(bitPattern: UInt32(Self.bigEndian(bytes, at: position, size: 4))))
            case 3:
                try checkRange(position, 8)
                return .double(Double(bitPattern: Self.bigEndian(bytes, at: position, size: 8)))
            default:
                throw PropertyListFormatError("real number of invalid size")
            }
        case 0x3:
            guard marker == 0x33 else { throw PropertyListFormatError("date of invalid size") }
            try checkRange(position, 8)
            return .date(Double(bitPattern: Self.bigEndian(bytes, at: position, size: 8)))
        case 0x4:
            let length = try count(marker: marker, at: &position)
            try checkRange(position, length)
            return .data(Data(bytes[position..<(position + length)]))
        case 0x5:
            let length = try count(marker: marker, at: &position)
            try checkRange(position, length)
            let ascii = bytes[position..<(position + length)]
            guard !ascii.contains(where: { $0 >= 0x80 }) else {
                throw PropertyListFormatError("ASCII string holds a non-ASCII byte")
            }
            // ASCII is valid UTF-8: no second validation pass, no Foundation encoding lookup.
            return .string(String(decoding: ascii, as: UTF8.self))
        case 0x6:
            let length = try count(marker: marker, at: &position)
            guard length <= offsetTableStart / 2 else { throw PropertyListFormatError("string is too long") }
            try checkRange(position, length * 2)
            var units = [UInt16]()
            units.reserveCapacity(length)
            for unitIndex in 0..<length {
                units.append(UInt16(Self.bigEndian(bytes, at: position + unitIndex * 2, size: 2)))
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else { throw PropertyListFormatError("UID of invalid size") }
            try checkRange(position, size)
            return .uid(Self.bigEndian(bytes, at: position, size: size))
        case 0xA:
            let length = try count(marker: marker, at: &position)
            return .array(try references(count: length, at: position))
        case 0xC:
            let length = try count(marker: marker, at: &position)
            return .set(try references(count: length, at: position))
        case 0xD:
            let length = try count(marker: marker, at: &position)
            guard length <= offsetTableStart / 2 else { throw PropertyListFormatError("dictionary is too long") }
            let keys = try references(count: length, at: position)
            let values = try references(count: length, at: position + length * referenceSize)
            return .dictionary(keys: keys, values: values)
        default:
            throw PropertyListFormatError("unsupported property list marker \(marker)")
        }
    }

    /// Parses the object at `index` and requires it to be a string.
    func string(at index: Int) throws(PropertyListFormatError) -> String {
        guard case .string(let value) = try object(at: index) else {
            throw PropertyListFormatError("expected a string at object \(index)")
        }
        return value
    }
}
