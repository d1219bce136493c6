import Foundation

@testable import AppSettings

/// A field of a stored set as an `NSCoding` class writes it: numbers and Booleans with the typed
/// `encode(_:forKey:)`, which stores them inline, anything else as an object.
enum FoundationField {
    case bool(Bool)
    case int64(Int64)
    case float(Float)
    case double(Double)
    case object(Any?)

    /// How Foundation's unarchiver must decode such a field.
    enum Kind: Sendable {
        case bool, int64, float, double, object
    }
}

/// Writes a stored set with Foundation's own `NSKeyedArchiver`, as an `NSCoding` class named
/// like the library's root object would.
final class FoundationSetWriter: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    private let fields: [String: FoundationField]

    init(_ fields: [String: FoundationField]) {
        self.fields = fields
    }

    init?(coder: NSCoder) { nil }

    func encode(with coder: NSCoder) {
        for (name, field) in fields {
            switch field {
            case .bool(let value): coder.encode(value, forKey: name)
            case .int64(let value): coder.encode(value, forKey: name)
            case .float(let value): coder.encode(value, forKey: name)
            case .double(let value): coder.encode(value, forKey: name)
            case .object(let value): coder.encode(value, forKey: name)
            }
        }
    }

    /// The archive, its root object under the library's class name.
    static func archive(_ fields: [String: FoundationField]) throws -> Data {
        NSKeyedArchiver.setClassName(ArchiveFormat.rootClassName, for: FoundationSetWriter.self)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(FoundationSetWriter(fields), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return try renamingClass(NSStringFromClass(FoundationSetWriter.self), in: archiver.encodedData)
    }

    /// corelibs' archiver ignores `setClassName(_:for:)` (`classNameForClass` returns `nil`), so
    /// the class description it wrote is renamed in the property list, which Foundation's
    /// `PropertyListSerialization` reads and writes again, UIDs included.
    private static func renamingClass(_ written: String, in archive: Data) throws -> Data {
        guard var plist = try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any],
            var objects = plist["$objects"] as? [Any]
        else { throw CocoaError(.propertyListReadCorrupt) }
        for (index, object) in objects.enumerated() {
            guard var description = object as? [String: Any], description["$classname"] as? String == written else {
                continue
            }
            description["$classname"] = ArchiveFormat.rootClassName
            description["$classes"] = [ArchiveFormat.rootClassName, "NSObject"]
            objects[index] = description
        }
        plist["$objects"] = objects
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }
}

/// Reads a stored set with Foundation's own `NSKeyedUnarchiver`, as an `NSCoding` class that
/// knows its settings would: each field with the decoder matching how it was written.
final class FoundationSetReader: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    /// The fields to decode, and how; set around ``read(_:decoding:)``.
    @TaskLocal private static var plan: [String: FoundationField.Kind] = [:]
    /// The decoded fields; `NSNull` for a field decoded as an object that held `nil`.
    private(set) var fields: [String: Any] = [:]

    init?(coder: NSCoder) {
        super.init()
        for (name, kind) in Self.plan where coder.containsValue(forKey: name) {
            switch kind {
            case .bool: fields[name] = coder.decodeBool(forKey: name)
            case .int64: fields[name] = coder.decodeInt64(forKey: name)
            case .float: fields[name] = coder.decodeFloat(forKey: name)
            case .double: fields[name] = coder.decodeDouble(forKey: name)
            case .object: fields[name] = coder.decodeObject(of: foundationClasses, forKey: name) ?? NSNull()
            }
        }
    }

    func encode(with coder: NSCoder) {}

    static func read(_ data: Data, decoding plan: [String: FoundationField.Kind]) throws -> [String: Any] {
        try $plan.withValue(plan) {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            unarchiver.setClass(FoundationSetReader.self, forClassName: ArchiveFormat.rootClassName)
            let root = unarchiver.decodeObject(of: FoundationSetReader.self, forKey: NSKeyedArchiveRootObjectKey)
            unarchiver.finishDecoding()
            if let error = unarchiver.error { throw error }
            guard let root else { throw CocoaError(.coderValueNotFound) }
            return root.fields
        }
    }
}

/// A stored set as the library's own reader sees it: format, schema version, settings.
struct StoredSetContents {
    var formatVersion: Int64?
    var schemaVersion: Int64?
    var settings: [String: StoredValue] = [:]

    init(_ data: Data) throws {
        var reader = try KeyedArchiveReader(data)
        let set = try reader.root()
        formatVersion = set.formatVersion
        schemaVersion = set.schemaVersion
        for (name, field) in set.settings { settings[name] = try reader.value(of: field, depth: 1) }
    }
}
