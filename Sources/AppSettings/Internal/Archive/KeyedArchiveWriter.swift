import Foundation

/// Encodes stored values as an `NSKeyedArchiver` archive in binary property-list form.
///
/// It writes exactly what Foundation's archiver writes for the same `NSDictionary`, `NSArray`,
/// `NSSet`, `NSDate`, `NSURL`, `NSUUID`, `NSNull`, `NSString`, `NSNumber` and `NSData` objects,
/// without creating any of those objects: the property list is built directly.
struct KeyedArchiveWriter {
    private var plist = BinaryPropertyListWriter(capacity: 256)
    /// `$objects`: plist indices; a UID is a position here.
    private var archiveObjects: [Int] = []
    /// Archive UIDs of objects already written, by plist index (scalars are uniqued by the plist).
    /// A table, not a dictionary: hashing was most of the writer's time.
    private var uidOfPlistIndex = DenseIndexTable()
    private var classUIDs: [String: UInt32] = [:]
    private var nullObjectUID: UInt32?
    private let classKey: Int

    init() {
        archiveObjects.append(plist.add(.string("$null")))
        classKey = plist.add(.string("$class"))
    }

    /// Field names used only by some objects, added when first used (the plist uniques strings).
    private var objectsKey: Int { mutating get { plist.add(.string("NS.objects")) } }
    private var keysKey: Int { mutating get { plist.add(.string("NS.keys")) } }

    /// Archives a settings set in the current format (see ``ArchiveFormat``), fields in name order.
    static func archive(
        schemaVersion: Int64,
        writeID: Int64 = .random(in: 1...Int64.max),
        generation: Int64? = nil,
        settings: [String: StoredValue],
        records: ReplicaRecords = [:],
        schema: String? = nil
    ) -> Data {
        var writer = KeyedArchiveWriter()
        let root = writer.reserveUID()
        var fields = [(Int, Int)]()
        fields.reserveCapacity(settings.count + 3)
        var integers = [
            (ArchiveFormat.formatVersionField, ArchiveFormat.formatVersion),
            (ArchiveFormat.schemaVersionField, schemaVersion), (ArchiveFormat.writeIDField, writeID),
        ]
        if let generation { integers.append((ArchiveFormat.generationField, generation)) }
        for (field, value) in integers {
            fields.append((writer.plist.add(.string(field)), writer.plist.add(.integer(value))))
        }
        for (field, tree) in records.sorted(by: { $0.key < $1.key }) {
            let key = writer.plist.add(.string(field))
            fields.append((key, writer.reference(writer.encode(tree))))
        }
        if let schema {
            let key = writer.plist.add(.string(ArchiveFormat.schemaField))
            fields.append((key, writer.reference(writer.encode(.string(schema)))))
        }
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            let key = writer.plist.add(.string(ArchiveFormat.fieldName(ofSetting: name)))
            fields.append((key, writer.field(value)))
        }
        writer.fillObject(root, className: ArchiveFormat.rootClassName, fields: fields)
        return writer.finish(root: root)
    }

    /// A value as an object's field: numbers and Booleans inline, where `encode(_:forKey:)` of
    /// `Bool`, `Int64`, `Float` and `Double` puts them; anything else a reference to its object.
    /// (An integer above `Int64.max` has no typed encoder: it stays an `NSNumber` object.)
    private mutating func field(_ value: StoredValue) -> Int {
        switch value {
        case .bool(let bool): plist.add(.bool(bool))
        case .integer(let integer): plist.add(.integer(integer))
        case .float(let float): plist.add(.float(float))
        case .double(let double): plist.add(.double(double))
        default: reference(encode(value))
        }
    }

    private mutating func uid(ofPlistIndex index: Int) -> UInt32 {
        if let uid = uidOfPlistIndex[index] { return UInt32(uid) }
        let uid = UInt32(archiveObjects.count)
        archiveObjects.append(index)
        uidOfPlistIndex[index] = Int(uid)
        return uid
    }

    private mutating func reserveUID() -> UInt32 {
        archiveObjects.append(-1)
        return UInt32(archiveObjects.count - 1)
    }

    private mutating func reference(_ uid: UInt32) -> Int {
        plist.add(.uid(UInt64(uid)))
    }

    private mutating func classReference(_ name: String) -> Int {
        if let uid = classUIDs[name] { return reference(uid) }
        let nameIndex = plist.add(.string(name))
        let classes = plist.add(.array([nameIndex, plist.add(.string("NSObject"))]))
        let description = plist.add(
            .dictionary(
                keys: [plist.add(.string("$classes")), plist.add(.string("$classname"))],
                values: [classes, nameIndex]
            )
        )
        let uid = self.uid(ofPlistIndex: description)
        classUIDs[name] = uid
        return reference(uid)
    }

    /// Writes an object dictionary `{ $class: name, key: value… }` into a reserved UID.
    private mutating func fillObject(_ uid: UInt32, className: String, fields: [(Int, Int)]) {
        var keys = [classKey]
        var values = [classReference(className)]
        for (key, value) in fields {
            keys.append(key)
            values.append(value)
        }
        archiveObjects[Int(uid)] = plist.add(.dictionary(keys: keys, values: values))
    }

    mutating func encode(_ value: StoredValue) -> UInt32 {
        switch value {
        case .null:
            if let nullObjectUID { return nullObjectUID }
            let uid = reserveUID()
            fillObject(uid, className: "NSNull", fields: [])
            nullObjectUID = uid
            return uid
        case .bool(let bool): return uid(ofPlistIndex: plist.add(.bool(bool)))
        case .integer(let integer): return uid(ofPlistIndex: plist.add(.integer(integer)))
        case .unsignedInteger(let integer): return uid(ofPlistIndex: plist.add(.unsignedInteger(integer)))
        case .float(let float): return uid(ofPlistIndex: plist.add(.float(float)))
        case .double(let double): return uid(ofPlistIndex: plist.add(.double(double)))
        // Only in values read from JSON, which are typed before they are stored: as the number it is.
        case .numberText: return encode(value.withNumberTextRead)
        case .string(let string): return uid(ofPlistIndex: plist.add(.string(string)))
        case .data(let data): return uid(ofPlistIndex: plist.add(.data(data)))
        case .date(let date):
            let uid = reserveUID()
            let time = plist.add(.double(date.timeIntervalSinceReferenceDate))
            fillObject(uid, className: "NSDate", fields: [(plist.add(.string("NS.time")), time)])
            return uid
        case .url(let url):
            let uid = reserveUID()
            let relative = reference(encode(.string(url.absoluteString)))
            fillObject(
                uid,
                className: "NSURL",
                fields: [(plist.add(.string("NS.base")), reference(0)), (plist.add(.string("NS.relative")), relative)]
            )
            return uid
        case .uuid(let uuid):
            let uid = reserveUID()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            fillObject(
                uid, className: "NSUUID", fields: [(plist.add(.string("NS.uuidbytes")), plist.add(.data(bytes)))])
            return uid
        case .array(let elements):
            return encodeCollection(elements, className: "NSArray")
        case .set(let elements):
            return encodeCollection(elements, className: "NSSet")
        case .dictionary(let entries):
            return encodeDictionary(entries.sorted { $0.key < $1.key })
        }
    }

    private mutating func encodeCollection(_ elements: [StoredValue], className: String) -> UInt32 {
        let uid = reserveUID()
        var references = [Int]()
        references.reserveCapacity(elements.count)
        for element in elements { references.append(reference(encode(element))) }
        fillObject(uid, className: className, fields: [(objectsKey, plist.add(.array(references)))])
        return uid
    }

    mutating func encodeDictionary(_ entries: [(String, StoredValue)]) -> UInt32 {
        let uid = reserveUID()
        var keys = [Int]()
        var values = [Int]()
        keys.reserveCapacity(entries.count)
        values.reserveCapacity(entries.count)
        for (key, value) in entries {
            keys.append(reference(encode(.string(key))))
            values.append(reference(encode(value)))
        }
        fillObject(
            uid,
            className: "NSDictionary",
            fields: [(keysKey, plist.add(.array(keys))), (objectsKey, plist.add(.array(values)))]
        )
        return uid
    }

    mutating func finish(root: UInt32) -> Data {
        let objects = plist.add(.array(archiveObjects))
        let top = plist.add(.dictionary(keys: [plist.add(.string("root"))], values: [reference(root)]))
        let rootIndex = plist.add(
            .dictionary(
                keys: [
                    plist.add(.string("$archiver")), plist.add(.string("$objects")),
                    plist.add(.string("$top")), plist.add(.string("$version")),
                ],
                values: [plist.add(.string("NSKeyedArchiver")), objects, top, plist.add(.integer(100_000))]
            )
        )
        return plist.serialized(top: rootIndex)
    }
}
