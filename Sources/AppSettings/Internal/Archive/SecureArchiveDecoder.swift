import Foundation

/// Decodes a nested keyed archive of an `NSSecureCoding` class without Foundation's unarchiver,
/// which stops the process on some damaged archives (on Linux, an object of another class than
/// asked for traps even with `.setErrorAndReturn`):
///
/// - Foundation values come from ``KeyedArchiveReader/value(uid:depth:)``; collections are built
///   here, so they may hold objects of the requested classes.
/// - An object of another class is created with `init(coder:)` on a decoder positioned on it,
///   only when its class is requested, conforms to `NSSecureCoding` and is not Foundation's.
/// - Anything unexpected (another class, a cycle, too deep, a bad reference) decodes as `nil` and
///   is recorded in ``error``; after the first failure every object decodes as `nil`.
/// - A missing key decodes as `nil` (or 0, `false`) without a failure, as on Apple platforms.
///
/// This file is `NSCoder`'s keyed interface; how objects are made is `SecureArchiveDecoder+Objects`.
final class SecureArchiveDecoder: NSCoder {
    /// What all decoders of one archive share: the reader, the objects made so far, the failure.
    final class Archive {
        var reader: KeyedArchiveReader
        /// Objects decoded so far by UID (not containers, whose contents depend on the classes
        /// asked for), so an object referenced twice is one object, as `NSKeyedUnarchiver` does it.
        var objects: [Int: AnyObject] = [:]
        /// Objects whose decoding has begun and not ended: meeting one again is a cycle.
        var inProgress: Set<Int> = []
        var failure: (any Error)?
        /// Bytes handed out by `decodeBytes(forKey:returnedLength:)`, kept alive with the decoders.
        var keptBytes: [NSData] = []

        init(reader: KeyedArchiveReader) {
            self.reader = reader
        }
    }

    let archive: Archive
    /// The fields of the object this decoder is positioned on (plist indices), by key.
    private let fields: [String: Int]
    /// How deeply this decoder's object is nested in the archive.
    let depth: Int
    /// The classes allowed when `decodeObject(forKey:)` names none.
    let defaultClasses: [AnyClass]

    init(archive: Archive, fields: [String: Int], depth: Int, defaultClasses: [AnyClass]) {
        self.archive = archive
        self.fields = fields
        self.depth = depth
        self.defaultClasses = defaultClasses
        super.init()
    }

    /// Decodes the root object (`$top.root`) of `data`, allowing `type` as the only class besides
    /// Foundation's.
    static func decodeRoot<Object: NSObject & NSSecureCoding>(
        _ type: Object.Type,
        from data: Data
    ) throws(ArchiveFormatError) -> Object {
        let archive = Archive(reader: try KeyedArchiveReader(data))
        let top = SecureArchiveDecoder(
            archive: archive,
            fields: [:],
            depth: 0,
            defaultClasses: ArchiveFormat.foundationClasses + [type]
        )
        let rootUID = archive.reader.rootUID
        let object = top.decodeObject(uid: rootUID, classes: [type])
        if let failure = archive.failure {
            throw failure as? ArchiveFormatError ?? ArchiveFormatError("\(failure)")
        }
        guard let object = object as? Object else {
            throw ArchiveFormatError("the archive's root object is not a \(NSStringFromClass(type))")
        }
        return object
    }

    /// Keeps the first failure of the archive; every later object then decodes as `nil`.
    func record(_ error: any Error) {
        if archive.failure == nil { archive.failure = error }
    }

    // MARK: - Keyed decoding

    override var allowsKeyedCoding: Bool { true }

    override var requiresSecureCoding: Bool { true }

    override var decodingFailurePolicy: NSCoder.DecodingFailurePolicy { .setErrorAndReturn }

    override var systemVersion: UInt32 { 1000 }

    override var error: (any Error)? { archive.failure }

    /// Records the failure; decoding goes on returning `nil` (it never stops the process).
    override func failWithError(_ error: any Error) {
        record(error)
    }

    override func containsValue(forKey key: String) -> Bool {
        fields[key] != nil
    }

    override func decodeObject(forKey key: String) -> Any? {
        decodeObject(allowing: defaultClasses, forKey: key)
    }

    private func decodeObject(allowing classes: [AnyClass], forKey key: String) -> Any? {
        guard archive.failure == nil, let field = fields[key] else { return nil }
        let uid: Int?
        do {
            uid = try archive.reader.referencedUID(inField: field)
        } catch {
            record(error)
            return nil
        }
        guard let uid else {
            record(ArchiveFormatError("field \(key) holds a plain value, not an object"))
            return nil
        }
        // UID 0 is `$null`: the field was encoded as nil.
        if uid == 0 { return nil }
        return decodeObject(uid: uid, classes: classes)
    }

    override func decodePropertyList(forKey key: String) -> Any? {
        decodeObject(allowing: ArchiveFormat.foundationClasses, forKey: key)
    }

    /// The value stored inline (not as an object reference) under `key`, or `nil` when the key is
    /// absent. A field the reader cannot parse is recorded as the decoder's failure, so the whole
    /// value is refused rather than read as 0.
    private func inlineValue(forKey key: String) -> BinaryPropertyListReader.Object? {
        guard let field = fields[key] else { return nil }
        do {
            return try archive.reader.inlineValue(inField: field)
        } catch {
            record(error)
            return nil
        }
    }

    override func decodeBool(forKey key: String) -> Bool {
        switch inlineValue(forKey: key) {
        case .bool(let value): value
        case .integer(let value): value != 0
        case .unsignedInteger(let value): value != 0
        default: false
        }
    }

    override func decodeInt64(forKey key: String) -> Int64 {
        switch inlineValue(forKey: key) {
        case .integer(let value): value
        case .unsignedInteger(let value): Int64(exactly: value) ?? 0
        case .bool(let value): value ? 1 : 0
        case .double(let value): Int64(exactly: value.rounded(.towardZero)) ?? 0
        case .float(let value): Int64(exactly: value.rounded(.towardZero)) ?? 0
        default: 0
        }
    }

    override func decodeInt32(forKey key: String) -> Int32 {
        Int32(exactly: decodeInt64(forKey: key)) ?? 0
    }

    override func decodeInteger(forKey key: String) -> Int {
        Int(exactly: decodeInt64(forKey: key)) ?? 0
    }

    override func decodeDouble(forKey key: String) -> Double {
        switch inlineValue(forKey: key) {
        case .double(let value): value
        case .float(let value): Double(value)
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        default: 0
        }
    }

    override func decodeFloat(forKey key: String) -> Float {
        Float(decodeDouble(forKey: key))
    }

    override func decodeCInt(forKey key: String) -> Int32 {
        decodeInt32(forKey: key)
    }

    /// The bytes of a data field, or `nil` when the key is absent or holds something else.
    private func bytes(forKey key: String) -> Data? {
        guard case .data(let data) = inlineValue(forKey: key) else { return nil }
        return data
    }

    /// An array field whose elements are all of `classes`; anything else is recorded as the failure.
    func decodeArrayOfObjects(allowing classes: [AnyClass], forKey key: String) -> [Any]? {
        guard let array = decodeObject(allowing: [NSArray.self] + classes, forKey: key) else { return nil }
        guard let array = array as? NSArray, Self.allElements(of: array, areAmong: classes) else {
            record(ArchiveFormatError("field \(key) is not an array of \(Self.names(of: classes))"))
            return nil
        }
        return array.map { $0 }
    }

    /// A dictionary field whose keys are of `keyClasses` and values of `objectClasses`; anything
    /// else is recorded as the failure.
    func decodeDictionary(
        keysAllowing keyClasses: [AnyClass],
        objectsAllowing objectClasses: [AnyClass],
        forKey key: String
    ) -> [AnyHashable: Any]? {
        let classes = [NSDictionary.self] + keyClasses + objectClasses
        guard let dictionary = decodeObject(allowing: classes, forKey: key) else { return nil }
        guard let dictionary = dictionary as? NSDictionary,
            Self.allElements(of: dictionary.allKeys, areAmong: keyClasses),
            Self.allElements(of: dictionary.allValues, areAmong: objectClasses)
        else {
            record(ArchiveFormatError("field \(key) is not a dictionary of the requested classes"))
            return nil
        }
        var result: [AnyHashable: Any] = [:]
        for (entryKey, value) in dictionary {
            guard let entryKey = entryKey as? AnyHashable else { continue }
            result[entryKey] = value
        }
        return result
    }

    private static func allElements(of elements: some Sequence, areAmong classes: [AnyClass]) -> Bool {
        elements.allSatisfy { element in
            guard let object = element as? NSObject else { return false }
            return classes.contains { type(of: object).isSubclass(of: $0) }
        }
    }

    // MARK: - What keyed archives do not hold

    // NSCoder's own versions of these stop the process; a keyed archive has no such values.

    /// Records a failure: an unkeyed value is never in a keyed archive.
    override func decodeData() -> Data? {
        record(ArchiveFormatError("unkeyed data was asked of a keyed archive"))
        return nil
    }

    override func version(forClassName className: String) -> Int { 0 }

    // MARK: - Entry points whose names or types differ between Foundations

    // NSCoder's Objective-C methods reach Swift under other names on Apple platforms (the overlay
    // refines them) than in swift-corelibs-foundation. Each branch overrides what its NSCoder has;
    // the parts above are the same on both. Not overridden on either, because NSCoder's own
    // versions call the overrides here: `decodeObject(of:forKey:)` for one class,
    // `decodeTopLevelObject…`, `decodeObject()`, `decodeArray(ofObjCType:count:at:)`,
    // `decodeBytes(withReturnedLength:)`, macOS's `decodePoint/Size/Rect(forKey:)`. UIKit's
    // `decodeCGPoint(forKey:)` and the like are UIKit's, not Foundation's, and work the same way.
    #if canImport(Darwin) || APPLE_STAND_INS_NSCODER
        // Apple's Foundation: `decodeObjectOfClasses:forKey:` and the collection methods take
        // `Set<AnyHashable>` of classes; NSCoder raises an exception for any that is not overridden.

        override func __decodeObject(ofClasses classes: Set<AnyHashable>?, forKey key: String) -> Any? {
            decodeObject(allowing: classes.map(Self.classes(in:)) ?? defaultClasses, forKey: key)
        }

        override func __decodeArrayOfObjects(ofClasses classes: Set<AnyHashable>, forKey key: String) -> [Any]? {
            decodeArrayOfObjects(allowing: Self.classes(in: classes), forKey: key)
        }

        override func __decodeDictionary(
            withKeysOfClasses keyClasses: Set<AnyHashable>,
            objectsOfClasses objectClasses: Set<AnyHashable>,
            forKey key: String
        ) -> [AnyHashable: Any]? {
            decodeDictionary(
                keysAllowing: Self.classes(in: keyClasses), objectsAllowing: Self.classes(in: objectClasses),
                forKey: key)
        }

        private static func classes(in set: Set<AnyHashable>) -> [AnyClass] {
            set.compactMap { $0.base as? AnyClass }
        }

        override var allowedClasses: Set<AnyHashable>? {
            // What `NSSet(...) as Set<AnyHashable>` does on Apple platforms, spelled so that Linux
            // compiles it too (for the check of this branch against Apple's NSCoder).
            Set<AnyHashable>._unconditionallyBridgeFromObjectiveC(NSSet(array: defaultClasses.map { $0 as AnyObject }))
        }

        /// The bytes stay valid as long as the decoder (the archive keeps them), as with
        /// `NSKeyedUnarchiver`.
        override func decodeBytes(forKey key: String, returnedLength lengthp: UnsafeMutablePointer<Int>?)
            -> UnsafePointer<UInt8>?
        {
            lengthp?.pointee = 0
            guard let data = bytes(forKey: key) else { return nil }
            let kept = NSData(data: data)
            archive.keptBytes.append(kept)
            lengthp?.pointee = kept.length
            return kept.bytes.assumingMemoryBound(to: UInt8.self)
        }

        /// Zeroes the value and records a failure: an unkeyed value is never in a keyed archive.
        /// (NSCoder's `decodeValue(ofObjCType:at:)`, `decodeObject()`, `decodeArray…` and
        /// `decodeBytes(withReturnedLength:)` come here.)
        override func decodeValue(ofObjCType type: UnsafePointer<CChar>, at data: UnsafeMutableRawPointer, size: Int) {
            data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            record(ArchiveFormatError("an unkeyed value was asked of a keyed archive"))
        }

        #if os(macOS) || APPLE_STAND_INS_MACOS
            override func decodePropertyList() -> Any? {
                record(ArchiveFormatError("an unkeyed property list was asked of a keyed archive"))
                return nil
            }
        #endif
    #else
        // swift-corelibs-foundation: classes as `[AnyClass]`, bytes through a closure (it has no
        // `decodeBytes(forKey:returnedLength:)`), and abstract methods that trap unless overridden.

        override func decodeObject(of classes: [AnyClass]?, forKey key: String) -> Any? {
            decodeObject(allowing: classes ?? defaultClasses, forKey: key)
        }

        override var allowedClasses: [AnyClass]? { defaultClasses }

        override func withDecodedUnsafeBytes<ResultType>(
            forKey key: String,
            body: (UnsafeRawBufferPointer?) throws -> ResultType
        ) rethrows -> ResultType {
            guard let data = bytes(forKey: key) else { return try body(nil) }
            return try data.withUnsafeBytes { try body($0) }
        }

        override func withDecodedUnsafeBufferPointer<ResultType>(
            forKey key: String,
            body: (UnsafeBufferPointer<UInt8>?) throws -> ResultType
        ) rethrows -> ResultType {
            guard let data = bytes(forKey: key) else { return try body(nil) }
            return try data.withUnsafeBytes { try body($0.bindMemory(to: UInt8.self)) }
        }

        /// Records a failure and leaves `data` as it is: an unkeyed value is never in a keyed
        /// archive. (NSCoder's `decodeObject()` and `decodeArray…` come here.)
        override func decodeValue(ofObjCType type: UnsafePointer<Int8>, at data: UnsafeMutableRawPointer) {
            record(ArchiveFormatError("an unkeyed value was asked of a keyed archive"))
        }

        override func decodePropertyList() -> Any? {
            record(ArchiveFormatError("an unkeyed property list was asked of a keyed archive"))
            return nil
        }
    #endif
}
