import Foundation
import Testing

@testable import AppSettings

extension BinaryPropertyListTests {
    /// What the reader makes of `data`: `nil` if it reads the object at `index` (the top object
    /// when `nil`), or the description of the error it throws.
    private static func refusal(_ data: Data, at index: Int? = nil) -> String? {
        do {
            let reader = try BinaryPropertyListReader(data)
            _ = try reader.object(at: index ?? reader.topObject)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Refusals

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let data: Data
        var index: Int?
        let message: String
        var testDescription: String { name }
    }

    /// A list of one object whose bytes are `object`.
    private static func single(_ object: [UInt8]) -> Data { RawPropertyList([object]).data }

    private static func list(_ change: (inout RawPropertyList) -> Void) -> Data {
        var list = RawPropertyList([[0xA1, 0x01], [0x10, 0x01]])
        change(&list)
        return list.data
    }

    static let refusals: [Refusal] = {
        let valid = list { _ in }
        var badMagic = valid
        badMagic.replaceSubrange(0..<6, with: Data("xplist".utf8))
        let outside = "trailer points outside the data"
        let past = "runs past the end of the object area"
        let unsupported = "unsupported property list marker"
        var refusals = [
            Refusal(
                name: "shorter than header and trailer", data: Data("bplist00".utf8) + Data(count: 31),
                message: "not a binary property list"),
            Refusal(name: "bad magic", data: badMagic, message: "not a binary property list"),
            Refusal(name: "offset size 3", data: list { $0.offsetSize = 3 }, message: "invalid integer sizes"),
            Refusal(name: "offset size 0", data: list { $0.offsetSize = 0 }, message: "invalid integer sizes"),
            Refusal(name: "reference size 3", data: list { $0.referenceSize = 3 }, message: "invalid integer sizes"),
            Refusal(name: "reference size 16", data: list { $0.referenceSize = 16 }, message: "invalid integer sizes"),
            Refusal(name: "no objects", data: list { $0.statedCount = 0 }, message: outside),
            Refusal(name: "more objects than bytes", data: list { $0.statedCount = 1_000 }, message: outside),
            Refusal(name: "object count overflowing", data: list { $0.statedCount = .max }, message: outside),
            Refusal(name: "top object out of range", data: list { $0.top = 2 }, message: outside),
            Refusal(name: "offset table in the header", data: list { $0.statedTableStart = 7 }, message: outside),
            Refusal(name: "offset table in the trailer", data: list { $0.statedTableStart = 14 }, message: outside),
            Refusal(name: "offset table too short", data: list { $0.statedTableStart = 13 }, message: outside),
            Refusal(
                name: "offset table start overflowing", data: list { $0.statedTableStart = .max }, message: outside),
            Refusal(
                name: "offset in the header", data: list { $0.statedOffsets = [0: 7] },
                message: "object 0 starts outside the object area"),
            Refusal(
                name: "offset in the offset table", data: list { $0.statedOffsets = [0: 12] },
                message: "object 0 starts outside the object area"),
            Refusal(
                name: "index past the last object", data: valid, index: 2, message: "object reference 2 is out of range"
            ),
            Refusal(name: "negative index", data: valid, index: -1, message: "object reference -1 is out of range"),
            Refusal(
                name: "reference out of range", data: list { $0.objects[0] = [0xA1, 0x02] },
                message: "object reference 2 is out of range"),
            Refusal(
                name: "integer of 32 bytes", data: single([0x15] + [UInt8](repeating: 0, count: 32)),
                message: "integer of invalid size"),
            Refusal(name: "integer cut short", data: single([0x13, 0, 0]), message: past),
            Refusal(
                name: "integer above UInt64.max", data: single([0x14, 1] + [UInt8](repeating: 0, count: 15)),
                message: "integer does not fit in 64 bits"),
            Refusal(
                name: "positive low half under all-ones high half",
                data: single([0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x7F] + [UInt8](repeating: 0, count: 7)),
                message: "integer does not fit in 64 bits"),
            Refusal(name: "real of 2 bytes", data: single([0x21, 0, 0]), message: "real number of invalid size"),
            Refusal(name: "Float cut short", data: single([0x22, 0]), message: past),
            Refusal(name: "Double cut short", data: single([0x23, 0, 0, 0, 0]), message: past),
            Refusal(name: "date of 4 bytes", data: single([0x32, 0, 0, 0, 0]), message: "date of invalid size"),
            Refusal(name: "date cut short", data: single([0x33, 0]), message: past),
            Refusal(name: "data cut short", data: single([0x45, 1, 2]), message: past),
            Refusal(
                name: "length that is a string", data: single([0x4F, 0x51, 0x41]),
                message: "object length is not an integer"),
            Refusal(
                name: "length of 16 bytes", data: single([0x4F, 0x14] + [UInt8](repeating: 0, count: 16)),
                message: "object length is not an integer"),
            Refusal(name: "length cut short", data: single([0x4F, 0x12, 0]), message: past),
            Refusal(name: "length marker at the end", data: single([0x4F]), message: past),
            Refusal(
                name: "length larger than the data",
                data: single([0x4F, 0x13] + [UInt8](repeating: 0xFF, count: 8)),
                message: "larger than the data"),
            Refusal(name: "ASCII string cut short", data: single([0x55, 0x41]), message: past),
            Refusal(
                name: "non-ASCII byte in an ASCII string", data: single([0x52, 0x41, 0x80]),
                message: "ASCII string holds a non-ASCII byte"),
            Refusal(name: "UTF-16 string cut short", data: single([0x62, 0, 0x41]), message: past),
            Refusal(
                name: "UTF-16 string longer than half the data", data: single([0x6F, 0x10, 0x0A]),
                message: "string is too long"),
            Refusal(
                name: "UID of 9 bytes", data: single([0x88] + [UInt8](repeating: 0, count: 9)),
                message: "UID of invalid size"),
            Refusal(name: "UID cut short", data: single([0x83, 0]), message: past),
            Refusal(name: "array references cut short", data: single([0xA3, 0]), message: past),
            Refusal(name: "set references cut short", data: single([0xC3, 0]), message: past),
            Refusal(
                name: "set reference out of range", data: single([0xC1, 0x05]),
                message: "object reference 5 is out of range"),
            Refusal(
                name: "dictionary longer than half the data", data: single([0xDF, 0x10, 0x0A]),
                message: "dictionary is too long"),
            Refusal(name: "dictionary values cut short", data: single([0xD1, 0]), message: past),
        ]
        for marker: UInt8 in [0x00, 0x01, 0x0C, 0x0F, 0x70, 0x90, 0xB0, 0xE0, 0xF0] {
            refusals.append(
                Refusal(name: "marker \(marker)", data: single([marker, 0]), message: "\(unsupported) \(marker)"))
        }
        return refusals
    }()

    @Test(arguments: refusals)
    func eachRefusalIsReached(_ refusal: Refusal) {
        let error = Self.refusal(refusal.data, at: refusal.index)
        #expect(error?.contains(refusal.message) == true, "\(refusal.name): \(error ?? "read without an error")")
    }

    @Test func theValidListUnderTheRefusalsIsRead() throws {
        #expect(try PropertyListTree(reading: Self.list { _ in }) == .array([.integer(1)]))
    }

    @Test func aStringIsRequiredWhereOneIsExpected() throws {
        let reader = try BinaryPropertyListReader(Self.list { _ in })
        #expect(throws: PropertyListFormatError.self) { try reader.string(at: 1) }
        let strings = try BinaryPropertyListReader(Self.single([0x51, 0x41]))
        #expect(try strings.string(at: 0) == "A")
    }

    /// A list whose array contains itself is read object by object: the reader never follows
    /// references on its own, so a cycle costs nothing until a caller walks it.
    @Test func aCycleIsReturnedAsIndicesWithoutRecursion() throws {
        let reader = try BinaryPropertyListReader(Self.single([0xA2, 0, 0]))
        guard case .array(let elements) = try reader.object(at: 0) else {
            Issue.record("not an array")
            return
        }
        #expect(elements == [0, 0])
    }

    /// Every truncation and every single-byte change of a written list is read or refused,
    /// never a trap; reading follows references to a bounded depth.
    @Test func damagedListsAreReadOrRefused() {
        let data = Self.foundationKinds.serialized
        #expect(throws: Never.self, "the undamaged list is read") { try PropertyListTree(reading: data) }
        var truncationsRead: [Int] = []
        for length in 0..<data.count where (try? PropertyListTree(reading: data.prefix(length))) != nil {
            truncationsRead.append(length)
        }
        var read = 0
        var refused = 0
        for position in data.indices {
            for mask: UInt8 in [0x01, 0x10, 0x80, 0xFF] {
                var damaged = data
                damaged[position] ^= mask
                if (try? PropertyListTree(reading: damaged)) != nil { read += 1 } else { refused += 1 }
            }
        }
        #expect(truncationsRead == [], "every truncation is refused")
        // Each change is read or refused (no trap), and both outcomes are reached: changes are
        // neither all caught by one check nor all ignored.
        #expect(read > 0 && refused > 0, "\(read) read, \(refused) refused")
    }
}
