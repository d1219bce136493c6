import Foundation

extension SecureArchiveDecoder {
    /// Decodes the object with the given UID, or records why not and returns `nil`.
    func decodeObject(uid: Int, classes: [AnyClass]) -> AnyObject? {
        guard archive.failure == nil else { return nil }
        do {
            return try object(uid: uid, classes: classes, depth: depth + 1)
        } catch {
            record(error)
            return nil
        }
    }

    private func object(uid: Int, classes: [AnyClass], depth: Int) throws(ArchiveFormatError) -> AnyObject {
        guard depth <= ArchiveFormat.maximumDepth else {
            throw ArchiveFormatError("objects are nested deeper than \(ArchiveFormat.maximumDepth) levels")
        }
        if let object = archive.objects[uid] {
            try Self.check(type(of: object), isAmong: classes)
            return object
        }
        guard archive.inProgress.insert(uid).inserted else {
            throw ArchiveFormatError("the archive's objects refer to each other in a cycle")
        }
        defer { archive.inProgress.remove(uid) }
        guard let description = try archive.reader.objectDescription(uid: uid) else {
            return try foundationValue(uid: uid, classes: classes, depth: depth)
        }
        switch description.className {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            let isSet = description.className.hasSuffix("Set")
            try Self.check(isSet ? NSSet.self : NSArray.self, isAmong: classes)
            var elements: [Any] = []
            for elementUID in try archive.reader.references(description.fields["NS.objects"]) {
                elements.append(try object(uid: elementUID, classes: classes, depth: depth + 1))
            }
            return isSet ? NSSet(array: elements) : NSArray(array: elements)
        case "NSDictionary", "NSMutableDictionary":
            try Self.check(NSDictionary.self, isAmong: classes)
            let entries = try archive.reader.dictionaryEntries(uid: uid)
            if !entries.isEmpty { try Self.check(NSString.self, isAmong: classes) }
            var keys: [NSString] = []
            var values: [Any] = []
            for entry in entries {
                keys.append(NSString(string: entry.key))
                values.append(try object(uid: entry.valueUID, classes: classes, depth: depth + 1))
            }
            return NSDictionary(objects: values, forKeys: keys)
        case "NSString", "NSMutableString", "NSData", "NSMutableData", "NSDate", "NSURL", "NSUUID", "NSNull":
            return try foundationValue(uid: uid, classes: classes, depth: depth)
        default:
            return try customObject(uid: uid, description: description, classes: classes, depth: depth)
        }
    }

    /// A Foundation value object, as ``KeyedArchiveReader`` reads it.
    private func foundationValue(uid: Int, classes: [AnyClass], depth: Int) throws(ArchiveFormatError) -> AnyObject {
        let value = try archive.reader.value(uid: uid, depth: depth)
        let object = value.foundationObject as AnyObject
        try Self.check(type(of: object), isAmong: classes)
        archive.objects[uid] = object
        return object
    }

    /// An object of a class of the app's, made with its `init(coder:)`.
    private func customObject(
        uid: Int,
        description: (className: String, fields: [String: Int]),
        classes: [AnyClass],
        depth: Int
    ) throws(ArchiveFormatError) -> AnyObject {
        let name = description.className
        guard Self.mayInstantiate(className: name),
            let objectClass = classes.first(where: { NSStringFromClass($0) == name }),
            let secureClass = objectClass as? any NSSecureCoding.Type, secureClass.supportsSecureCoding
        else {
            throw ArchiveFormatError("class \(name) is not allowed here (expected \(Self.names(of: classes)))")
        }
        let decoder = SecureArchiveDecoder(
            archive: archive,
            fields: description.fields,
            depth: depth,
            defaultClasses: defaultClasses
        )
        let decoded = secureClass.init(coder: decoder)
        if let failure = archive.failure {
            throw failure as? ArchiveFormatError ?? ArchiveFormatError("\(failure)")
        }
        guard let decoded else { throw ArchiveFormatError("\(name).init(coder:) returned nil") }
        let object = decoded as AnyObject
        archive.objects[uid] = object
        return object
    }

    /// Whether a value of `valueClass` can be read back: a class this decoder instantiates, or one of
    /// the Foundation classes it builds itself.
    static func canDecode(_ valueClass: AnyClass) -> Bool {
        mayInstantiate(className: NSStringFromClass(valueClass))
            || ArchiveFormat.foundationClasses.contains { ObjectIdentifier($0) == ObjectIdentifier(valueClass) }
    }

    /// Whether a class name may be instantiated with `init(coder:)`: not a Foundation class, whose
    /// initializers call `NSKeyedUnarchiver` internals that would stop the process here.
    private static func mayInstantiate(className name: String) -> Bool {
        if name.hasPrefix("Foundation.") { return false }
        if name.contains(".") { return true }
        return !(name.hasPrefix("NS") || name.hasPrefix("_NS") || name.hasPrefix("__NS"))
    }

    private static func check(_ objectClass: AnyClass, isAmong classes: [AnyClass]) throws(ArchiveFormatError) {
        guard let objectClass = objectClass as? NSObject.Type,
            classes.contains(where: { objectClass.isSubclass(of: $0) })
        else {
            throw ArchiveFormatError(
                "found an object of class \(NSStringFromClass(objectClass)), expected \(names(of: classes))")
        }
    }

    /// The classes, as an error names them.
    static func names(of classes: [AnyClass]) -> String {
        classes.isEmpty ? "no object" : classes.map { NSStringFromClass($0) }.joined(separator: " or ")
    }
}
