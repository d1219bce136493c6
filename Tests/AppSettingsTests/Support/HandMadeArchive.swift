import Foundation

@testable import AppSettings

/// Builds keyed archives object by object, including ones no archiver would write: cycles,
/// bad references, unknown classes. Objects are keyed-archive objects; `UID`s index `$objects`.
struct HandMadeArchive {
    private var plist = BinaryPropertyListWriter()
    private var objects: [Int] = []

    init() {
        objects.append(plist.add(.string("$null")))
    }

    /// Adds a plain property-list object (string, number, data) to `$objects`.
    mutating func add(_ object: BinaryPropertyListWriter.Object) -> UInt32 {
        objects.append(plist.add(object))
        return UInt32(objects.count - 1)
    }

    /// Adds a property-list object that is not in `$objects` (a field's value, an element of a
    /// container) and returns its property-list index.
    mutating func plistIndex(of object: BinaryPropertyListWriter.Object) -> Int {
        plist.add(object)
    }

    /// Reserves a UID to fill later (for cycles).
    mutating func reserve() -> UInt32 {
        objects.append(-1)
        return UInt32(objects.count - 1)
    }

    /// An object `{ $class: <className>, field: UID… }`, placed at `uid` (or appended).
    @discardableResult
    mutating func object(_ className: String, _ fields: [String: Fields], at uid: UInt32? = nil) -> UInt32 {
        let classUID = add(
            .dictionary(
                keys: [plist.add(.string("$classname")), plist.add(.string("$classes"))],
                values: [plist.add(.string(className)), plist.add(.array([plist.add(.string(className))]))]
            )
        )
        var keys = [plist.add(.string("$class"))]
        var values = [plist.add(.uid(UInt64(classUID)))]
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            keys.append(plist.add(.string(key)))
            switch value {
            case .reference(let uid): values.append(plist.add(.uid(UInt64(uid))))
            case .references(let uids): values.append(plist.add(.array(uids.map { plist.add(.uid(UInt64($0))) })))
            case .plain(let object): values.append(plist.add(object))
            }
        }
        let index = plist.add(.dictionary(keys: keys, values: values))
        if let uid {
            objects[Int(uid)] = index
            return uid
        }
        objects.append(index)
        return UInt32(objects.count - 1)
    }

    enum Fields {
        case reference(UInt32)
        case references([UInt32])
        case plain(BinaryPropertyListWriter.Object)
    }

    /// An `NSDictionary` of string keys to UIDs.
    mutating func dictionary(_ entries: [String: UInt32]) -> UInt32 {
        let sorted = entries.sorted { $0.key < $1.key }
        let keys = sorted.map { add(.string($0.key)) }
        return object("NSDictionary", ["NS.keys": .references(keys), "NS.objects": .references(sorted.map(\.value))])
    }

    /// A settings root `{ formatVersion: 1, schemaVersion: 0, settings: <settings> }`.
    mutating func settingsRoot(_ settings: [String: UInt32], schemaVersion: Int64 = 0) -> UInt32 {
        let settingsUID = dictionary(settings)
        return dictionary([
            "formatVersion": add(.integer(1)), "schemaVersion": add(.integer(schemaVersion)), "settings": settingsUID,
        ])
    }

    mutating func finish(root: UInt32) -> Data {
        for index in objects.indices where objects[index] < 0 { objects[index] = plist.add(.string("unfilled")) }
        let objectsIndex = plist.add(.array(objects))
        let top = plist.add(.dictionary(keys: [plist.add(.string("root"))], values: [plist.add(.uid(UInt64(root)))]))
        let rootIndex = plist.add(
            .dictionary(
                keys: [
                    plist.add(.string("$archiver")), plist.add(.string("$objects")), plist.add(.string("$top")),
                    plist.add(.string("$version")),
                ],
                values: [plist.add(.string("NSKeyedArchiver")), objectsIndex, top, plist.add(.integer(100_000))]
            )
        )
        return plist.serialized(top: rootIndex)
    }
}
