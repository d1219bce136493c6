import Foundation

@testable import AppSettings

/// An `NSSecureCoding` class with every kind of field: optional ones, primitives, a link to
/// another object of its class and an array of them.
final class Chain: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let note: String?
    let count: Int
    let flag: Bool
    let weight: Double
    let next: Chain?
    let children: [Chain]

    init(
        name: String, note: String? = nil, count: Int = 0, flag: Bool = false, weight: Double = 0,
        next: Chain? = nil, children: [Chain] = []
    ) {
        self.name = name
        self.note = note
        self.count = count
        self.flag = flag
        self.weight = weight
        self.next = next
        self.children = children
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        // Optional: a missing key gives nil, nothing else.
        note = coder.decodeObject(of: NSString.self, forKey: "note").map { $0 as String }
        count = coder.decodeInteger(forKey: "count")
        flag = coder.decodeBool(forKey: "flag")
        weight = coder.decodeDouble(forKey: "weight")
        next = coder.decodeObject(of: Chain.self, forKey: "next")
        children = coder.decodeObject(of: [NSArray.self, Chain.self], forKey: "children") as? [Chain] ?? []
    }

    func encode(with coder: NSCoder) {
        coder.encode(NSString(string: name), forKey: "name")
        if let note { coder.encode(NSString(string: note), forKey: "note") }
        coder.encode(count, forKey: "count")
        coder.encode(flag, forKey: "flag")
        coder.encode(weight, forKey: "weight")
        if let next { coder.encode(next, forKey: "next") }
        if !children.isEmpty { coder.encode(NSArray(array: children), forKey: "children") }
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Chain else { return false }
        return other.name == name && other.note == note && other.count == count && other.flag == flag
            && other.weight == weight && other.next == next && other.children == children
    }

    override var hash: Int { name.hashValue }
}

extension Chain: SettingValue {}

/// An `NSSecureCoding` value whose `init(coder:)` uses NSCoder's other keyed entry points: bytes,
/// `CInt`, `Int32`, `Int64`, `Float`, a property list, a missing key and the coder's state.
final class Gauge: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let bytes: Data
    let cInt: Int32
    let int32: Int32
    let int64: Int64
    let float: Float
    let label: String

    init(bytes: Data, cInt: Int32, int32: Int32, int64: Int64, float: Float, label: String) {
        (self.bytes, self.cInt, self.int32, self.int64, self.float, self.label) = (
            bytes, cInt, int32, int64, float, label
        )
    }

    init?(coder: NSCoder) {
        // What a careful initializer checks before it trusts the coder.
        guard coder.allowsKeyedCoding, coder.requiresSecureCoding, coder.allowedClasses != nil,
            coder.decodingFailurePolicy == .setErrorAndReturn, coder.containsValue(forKey: "bytes"),
            !coder.containsValue(forKey: "missing")
        else { return nil }
        #if canImport(Darwin)
            var length = 0
            let decoded = coder.decodeBytes(forKey: "bytes", returnedLength: &length).map {
                Data(bytes: $0, count: length)
            }
        #else
            let decoded = coder.withDecodedUnsafeBytes(forKey: "bytes") { $0.map { Data($0) } }
        #endif
        // A missing key is 0 or nil, never a failure.
        guard let decoded, coder.decodeInt32(forKey: "missing") == 0, coder.decodeFloat(forKey: "missing") == 0,
            coder.decodePropertyList(forKey: "missing") == nil
        else { return nil }
        bytes = decoded
        cInt = coder.decodeCInt(forKey: "cInt")
        int32 = coder.decodeInt32(forKey: "int32")
        int64 = coder.decodeInt64(forKey: "int64")
        float = coder.decodeFloat(forKey: "float")
        label = coder.decodePropertyList(forKey: "label") as? String ?? ""
        if coder.containsValue(forKey: "unkeyed") { _ = coder.decodeObject() }
        guard coder.error == nil else { return nil }
    }

    func encode(with coder: NSCoder) {
        bytes.withUnsafeBytes {
            coder.encodeBytes($0.bindMemory(to: UInt8.self).baseAddress, length: $0.count, forKey: "bytes")
        }
        coder.encode(cInt, forKey: "cInt")
        coder.encode(int32, forKey: "int32")
        coder.encode(int64, forKey: "int64")
        coder.encode(float, forKey: "float")
        coder.encode(NSString(string: label), forKey: "label")
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Gauge else { return false }
        return (other.bytes, other.cInt, other.int32, other.int64, other.float, other.label)
            == (bytes, cInt, int32, int64, float, label)
    }

    override var hash: Int { bytes.hashValue }
}

extension Gauge: SettingValue {}

/// Reads an array of strings and a dictionary of numbers the way Apple's
/// `decodeArrayOfObjects(ofClasses:forKey:)` and `decodeDictionary(withKeysOfClasses:…)` do (those
/// call the decoder's methods used here).
final class CollectionProbe: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let list: [Any]?
    let map: [AnyHashable: Any]?

    init?(coder: NSCoder) {
        guard let decoder = coder as? SecureArchiveDecoder else { return nil }
        list = decoder.decodeArrayOfObjects(allowing: [NSString.self], forKey: "list")
        map = decoder.decodeDictionary(keysAllowing: [NSString.self], objectsAllowing: [NSNumber.self], forKey: "map")
    }

    func encode(with coder: NSCoder) {}
}

/// A settings class holding a `Gauge`.
final class GaugeSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var gauge = Gauge(bytes: Data(), cInt: 0, int32: 0, int64: 0, float: 0, label: "default")
}

/// A Foundation `NSSecureCoding` class made a setting: it compiles, but only `NSKeyedUnarchiver`
/// could read it back (as with `NSColor` or `UIColor`), so saving it fails and names the setting.
extension NSDateComponents: SettingValue {}

final class FoundationObjectSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var components = NSDateComponents()
    @Setting var note = "kept"
}

/// A subclass that writes the `supportsSecureCoding` override out, as one must that is decoded by
/// `NSKeyedUnarchiver` on Apple platforms before any instance of it exists.
final class ExplicitlySecureSettings: AppSettingsObject, @unchecked Sendable {
    override class var supportsSecureCoding: Bool { true }
    @Setting var level = 1
}
