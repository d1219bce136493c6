import Foundation

/// Reads an `NSKeyedArchiver` archive of Foundation objects into stored values, defensively.
///
/// Only the classes that ``StoredValue`` can represent are accepted; any other class name,
/// a reference cycle, nesting deeper than ``ArchiveFormat/maximumDepth`` or more objects than the
/// bytes can honestly hold is an ``ArchiveFormatError``, never a trap. Foundation's unarchiver
/// is never involved, so none of its fatal paths can be reached from stored bytes.
struct KeyedArchiveReader {
    private let plist: BinaryPropertyListReader
    private let archiveObjects: [Int]
    let rootUID: Int
    private var classNames: [Int: String] = [:]
    private var visiting: Set<Int> = []
    /// Strings and data already decoded, by UID: shared objects stay shared (one copy in memory
    /// however often they are referenced), so a small archive cannot expand into a huge load.
    private var decodedScalars: [Int: StoredValue] = [:]
    /// How many more values may be produced; shared sub-graphs count each time they are used.
    private var budget: Int

    init(_ data: Data) throws(ArchiveFormatError) {
        let plist: BinaryPropertyListReader
        do {
            plist = try BinaryPropertyListReader(data)
        } catch {
            throw ArchiveFormatError(error)
        }
        guard case .dictionary(let keys, let values) = try Self.object(in: plist, at: plist.topObject) else {
            throw ArchiveFormatError("the property list is not a keyed archive (its root is not a dictionary)")
        }
        var top: [String: Int] = [:]
        for (key, value) in zip(keys, values) { top[try Self.string(in: plist, at: key)] = value }
        guard let archiver = top["$archiver"], try Self.string(in: plist, at: archiver) == "NSKeyedArchiver" else {
            throw ArchiveFormatError("the property list is not an NSKeyedArchiver archive")
        }
        guard let objectsIndex = top["$objects"],
            case .array(let objects) = try Self.object(in: plist, at: objectsIndex),
            !objects.isEmpty
        else {
            throw ArchiveFormatError("the archive has no $objects array")
        }
        var rootReference: Int?
        if let topIndex = top["$top"],
            case .dictionary(let topKeys, let topValues) = try Self.object(in: plist, at: topIndex)
        {
            for (key, value) in zip(topKeys, topValues) where try Self.string(in: plist, at: key) == "root" {
                rootReference = value
            }
        }
        guard let rootReference, case .uid(let root) = try Self.object(in: plist, at: rootReference),
            root < UInt64(objects.count)
        else {
            throw ArchiveFormatError("the archive has no valid root object")
        }
        self.plist = plist
        self.archiveObjects = objects
        self.rootUID = Int(root)
        self.budget = data.count + 1024
    }

    private func uid(_ plistIndex: Int) throws(ArchiveFormatError) -> Int {
        guard case .uid(let uid) = try Self.object(in: plist, at: plistIndex) else {
            throw ArchiveFormatError("expected an object reference")
        }
        guard uid < UInt64(archiveObjects.count) else {
            throw ArchiveFormatError("object reference \(uid) is out of range")
        }
        return Int(uid)
    }

    private mutating func className(ofObjectFields fields: [String: Int]) throws(ArchiveFormatError) -> String {
        guard let classField = fields["$class"] else { throw ArchiveFormatError("object has no $class") }
        let classUID = try uid(classField)
        if let name = classNames[classUID] { return name }
        guard case .dictionary(let keys, let values) = try Self.object(in: plist, at: archiveObjects[classUID]) else {
            throw ArchiveFormatError("class description is not a dictionary")
        }
        for (key, value) in zip(keys, values) where try Self.string(in: plist, at: key) == "$classname" {
            let name = try Self.string(in: plist, at: value)
            classNames[classUID] = name
            return name
        }
        throw ArchiveFormatError("class description has no $classname")
    }

    private func fields(_ keys: [Int], _ values: [Int]) throws(ArchiveFormatError) -> [String: Int] {
        var result = [String: Int](minimumCapacity: keys.count)
        for (key, value) in zip(keys, values) { result[try Self.string(in: plist, at: key)] = value }
        return result
    }

    /// The entries of the dictionary object with the given UID, values not yet decoded.
    mutating func dictionaryEntries(uid: Int) throws(ArchiveFormatError) -> [(key: String, valueUID: Int)] {
        guard case .dictionary(let keys, let values) = try Self.object(in: plist, at: archiveObjects[uid]) else {
            throw ArchiveFormatError("expected a dictionary object")
        }
        let fields = try fields(keys, values)
        let name = try className(ofObjectFields: fields)
        guard name == "NSDictionary" || name == "NSMutableDictionary" else {
            throw ArchiveFormatError("expected an NSDictionary, found \(name)")
        }
        let keyUIDs = try references(fields["NS.keys"])
        let valueUIDs = try references(fields["NS.objects"])
        guard keyUIDs.count == valueUIDs.count else {
            throw ArchiveFormatError("dictionary has \(keyUIDs.count) keys but \(valueUIDs.count) values")
        }
        var entries = [(key: String, valueUID: Int)]()
        entries.reserveCapacity(keyUIDs.count)
        for (keyUID, valueUID) in zip(keyUIDs, valueUIDs) {
            guard case .string(let key) = try value(uid: keyUID, depth: 0) else {
                throw ArchiveFormatError("dictionary key is not a string")
            }
            entries.append((key, valueUID))
        }
        return entries
    }

    /// The UIDs in an object's field that holds an array of references (`NS.objects`, `NS.keys`).
    func references(_ field: Int?) throws(ArchiveFormatError) -> [Int] {
        guard let field else { return [] }
        guard case .array(let elements) = try Self.object(in: plist, at: field) else {
            throw ArchiveFormatError("expected an array of object references")
        }
        return try elements.map { element throws(ArchiveFormatError) in try uid(element) }
    }

    /// Counts one more value produced against the budget.
    private mutating func spendBudget() throws(ArchiveFormatError) {
        budget -= 1
        guard budget >= 0 else { throw ArchiveFormatError("the archive expands to more objects than it can hold") }
    }

    /// A number or Boolean as the stored value it is, wherever it is stored; `nil` for anything else.
    private static func number(_ object: BinaryPropertyListReader.Object) -> StoredValue? {
        switch object {
        case .bool(let bool): .bool(bool)
        case .integer(let integer): .integer(integer)
        case .unsignedInteger(let integer): .unsignedInteger(integer)
        case .float(let float): .float(float)
        case .double(let double): .double(double)
        default: nil
        }
    }

    /// Decodes the object with the given UID and everything it refers to.
    mutating func value(uid: Int, depth: Int) throws(ArchiveFormatError) -> StoredValue {
        try spendBudget()
        guard depth <= ArchiveFormat.maximumDepth else {
            throw ArchiveFormatError("objects are nested deeper than \(ArchiveFormat.maximumDepth) levels")
        }
        if uid == 0 { return .null }
        if let scalar = decodedScalars[uid] { return scalar }
        let object = try Self.object(in: plist, at: archiveObjects[uid])
        if let number = Self.number(object) { return number }
        switch object {
        case .string(let string):
            decodedScalars[uid] = .string(string)
            return .string(string)
        case .data(let data):
            decodedScalars[uid] = .data(data)
            return .data(data)
        case .dictionary(let keys, let values):
            guard visiting.insert(uid).inserted else {
                throw ArchiveFormatError("the archive's objects refer to each other in a cycle")
            }
            defer { visiting.remove(uid) }
            return try self.object(fields: fields(keys, values), objectUID: uid, depth: depth)
        default:
            throw ArchiveFormatError("object \(uid) is not a valid archived object")
        }
    }

    private mutating func object(fields: [String: Int], objectUID: Int, depth: Int) throws(ArchiveFormatError)
        -> StoredValue
    {
        let name = try className(ofObjectFields: fields)
        switch name {
        case "NSDictionary", "NSMutableDictionary":
            var result = [String: StoredValue]()
            for entry in try dictionaryEntries(uid: objectUID) {
                result[entry.key] = try value(uid: entry.valueUID, depth: depth + 1)
            }
            return .dictionary(result)
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            let elements = try references(fields["NS.objects"]).map { element throws(ArchiveFormatError) in
                try value(uid: element, depth: depth + 1)
            }
            return name.hasSuffix("Set") ? .set(elements) : .array(elements)
        case "NSDate":
            guard let timeField = fields["NS.time"] else { throw ArchiveFormatError("NSDate has no NS.time") }
            let time: Double
            switch try Self.object(in: plist, at: timeField) {
            case .double(let value): time = value
            case .float(let value): time = Double(value)
            case .integer(let value): time = Double(value)
            default: throw ArchiveFormatError("NSDate has no valid NS.time")
            }
            // Foundation traps describing a date that is not a number; no real date is infinite.
            guard time.isFinite else { throw ArchiveFormatError("NSDate has a time that is not a finite number") }
            return .date(Date(timeIntervalSinceReferenceDate: time))
        case "NSURL":
            guard let relativeField = fields["NS.relative"],
                case .string(let relative) = try value(uid: uid(relativeField), depth: depth + 1)
            else {
                throw ArchiveFormatError("NSURL has no NS.relative string")
            }
            var base: URL?
            if let baseField = fields["NS.base"] {
                switch try value(uid: uid(baseField), depth: depth + 1) {
                case .null: base = nil
                case .url(let baseURL): base = baseURL
                default: throw ArchiveFormatError("NSURL has an NS.base that is not a URL")
                }
            }
            guard let url = URL(string: relative, relativeTo: base) else {
                throw ArchiveFormatError("NSURL string is not a valid URL")
            }
            return .url(base == nil ? url : url.absoluteURL)
        case "NSUUID":
            guard let bytesField = fields["NS.uuidbytes"],
                case .data(let bytes) = try Self.object(in: plist, at: bytesField),
                bytes.count == 16
            else {
                throw ArchiveFormatError("NSUUID has no 16-byte NS.uuidbytes")
            }
            let uuid = bytes.withUnsafeBytes { raw in
                UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
            }
            return .uuid(uuid)
        case "NSNull":
            return .null
        case "NSString", "NSMutableString":
            guard let field = fields["NS.string"], case .string(let string) = try Self.object(in: plist, at: field)
            else {
                throw ArchiveFormatError("\(name) has no NS.string")
            }
            return .string(string)
        case "NSData", "NSMutableData":
            guard let field = fields["NS.data"], case .data(let data) = try Self.object(in: plist, at: field) else {
                throw ArchiveFormatError("\(name) has no NS.data")
            }
            return .data(data)
        default:
            throw ArchiveFormatError("class \(name) is not one a setting can be stored as")
        }
    }
}

extension KeyedArchiveReader {
    /// Decodes a setting's value, wherever it is.
    mutating func value(of field: Field, depth: Int) throws(ArchiveFormatError) -> StoredValue {
        switch field {
        case .object(let uid):
            return try value(uid: uid, depth: depth)
        case .inline(let plistIndex):
            try spendBudget()
            let object = try Self.object(in: plist, at: plistIndex)
            if let number = Self.number(object) { return number }
            guard case .data(let data) = object else {
                throw ArchiveFormatError("a field holds an inline value that is not a number, Boolean or data")
            }
            return .data(data)
        }
    }

    /// The class name and fields (plist indices, `$class` left out) of the object with the given
    /// UID, or `nil` when that object is a plain property-list value (a string, number or data).
    ///
    /// Counts against the same budget as ``value(uid:depth:)``, so a decoder that walks objects
    /// one by one with it cannot be made to do more work than the bytes can honestly hold.
    mutating func objectDescription(uid: Int) throws(ArchiveFormatError) -> (className: String, fields: [String: Int])?
    {
        try spendBudget()
        guard uid > 0, uid < archiveObjects.count else {
            throw ArchiveFormatError("object reference \(uid) does not name an object")
        }
        switch try Self.object(in: plist, at: archiveObjects[uid]) {
        case .dictionary(let keys, let values):
            var objectFields = try fields(keys, values)
            let name = try className(ofObjectFields: objectFields)
            objectFields["$class"] = nil
            return (name, objectFields)
        case .bool, .integer, .unsignedInteger, .float, .double, .string, .data:
            return nil
        case .date, .uid, .array, .set:
            throw ArchiveFormatError("object \(uid) is not a valid archived object")
        }
    }

    /// The UID an object's field refers to, or `nil` when the field holds an inline value.
    func referencedUID(inField plistIndex: Int) throws(ArchiveFormatError) -> Int? {
        guard case .uid = try Self.object(in: plist, at: plistIndex) else { return nil }
        return try uid(plistIndex)
    }

    /// The property-list value stored inline in an object's field (a number, Boolean or data).
    func inlineValue(inField plistIndex: Int) throws(ArchiveFormatError) -> BinaryPropertyListReader.Object {
        try Self.object(in: plist, at: plistIndex)
    }
}

extension KeyedArchiveReader {
    /// The property list's object at `index`; its format errors are the archive's.
    fileprivate static func object(
        in plist: BinaryPropertyListReader,
        at index: Int
    ) throws(ArchiveFormatError) -> BinaryPropertyListReader.Object {
        do {
            return try plist.object(at: index)
        } catch {
            throw ArchiveFormatError(error)
        }
    }

    /// The property list's string at `index`; its format errors are the archive's.
    fileprivate static func string(in plist: BinaryPropertyListReader, at index: Int) throws(ArchiveFormatError)
        -> String
    {
        do {
            return try plist.string(at: index)
        } catch {
            throw ArchiveFormatError(error)
        }
    }
}
