// Writes the seed corpus: archives made by the library from settings with varied values, and a
// few made by Foundation's NSKeyedArchiver in the same layouts (format 2, and format 1). Built and run by
// `scripts/fuzz.sh --generate-corpus`; the output is committed in Fuzz/corpus/.

import Foundation

@main
enum GenerateCorpus {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: generate-corpus <directory>\n".utf8))
            exit(2)
        }
        let directory = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var count = 0
        func save(_ name: String, _ data: Data) throws {
            try data.write(to: directory.appendingPathComponent(name))
            count += 1
        }

        // The library's own archives.
        let settings = fuzzTemplate.copy() as! FuzzSettings
        try save("library-defaults", TestingHooks(object: settings).archivedBytes())
        settings.bool = true
        settings.int = -42
        settings.int8 = 7
        settings.int16 = -300
        settings.int32 = 70000
        settings.int64 = Int64.min
        settings.uint = UInt.max
        settings.uint8 = 255
        settings.uint16 = 65535
        settings.uint32 = 4_000_000_000
        settings.uint64 = UInt64.max
        settings.float = 0.25
        settings.double = -1.5e300
        settings.string = "Grüße, 世界 🎉"
        settings.date = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        settings.data = Data([0, 1, 2, 0xFF])
        settings.url = URL(string: "file:///tmp/a%20b?x=1#frag")!
        settings.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        settings.optionalString = nil
        settings.optionalInt = 3
        settings.optionalDate = Date(timeIntervalSince1970: 0)
        settings.strings = ["a", "", "long string with spaces"]
        settings.intSet = [1, 2, 3]
        settings.doubles = ["one": 1, "two": 2]
        settings.nestedArrays = [[1, 2], [], [3]]
        settings.optionalArray = ["x", nil, "y"]
        settings.urls = [URL(string: "mailto:someone@example.com")!, URL(string: "custom-scheme:opaque")!]
        settings.theme = .dark
        settings.speed = .fast
        settings.frame = FuzzFrame(x: 1, y: 2, title: "main", tags: ["t"], when: Date(timeIntervalSince1970: 1))
        settings.tag = FuzzTag(name: "tag", weight: 2.5, created: Date(timeIntervalSince1970: 2))
        settings.nested.volume = 9
        settings.nested.muted = true
        settings.nested.names = ["n1", "n2"]
        let listed = FuzzNestedSettings(userDefaults: fuzzTemplate.userDefaults)
        listed.volume = 1
        settings.nestedList = [listed, FuzzNestedSettings(userDefaults: fuzzTemplate.userDefaults)]
        settings.storedUnderAnotherName = 11
        try save("library-all-set", TestingHooks(object: settings).archivedBytes())

        settings.strings = (0..<40).map { "element \($0)" }
        settings.doubles = Dictionary(uniqueKeysWithValues: (0..<30).map { ("key\($0)", $0) })
        settings.data = Data(repeating: 0xAB, count: 300)
        try save("library-larger", TestingHooks(object: settings).archivedBytes())

        let few = fuzzTemplate.copy() as! FuzzSettings
        few.string = "only a string"
        few.theme = .system
        try save("library-few", TestingHooks(object: few).archivedBytes())

        // Foundation's archiver, same layout: other class names (NSMutableDictionary, NSString
        // objects), other object order.
        func foundationArchive(_ settings: [String: Any], schemaVersion: Int = 0) throws -> Data {
            let root = NSMutableDictionary()
            root["formatVersion"] = NSNumber(value: 1)
            root["schemaVersion"] = NSNumber(value: schemaVersion)
            root["settings"] = NSMutableDictionary(dictionary: settings)
            return try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
        }
        try save(
            "foundation-scalars",
            foundationArchive([
                "bool": NSNumber(value: true), "int": NSNumber(value: 12), "double": NSNumber(value: 0.5),
                "string": NSString(string: "from Foundation"), "date": NSDate(timeIntervalSinceReferenceDate: 1),
                "data": NSData(bytes: [1, 2, 3] as [UInt8], length: 3),
                "uuid": NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                "url": NSURL(string: "https://example.com/path")!, "optionalString": NSNull(),
            ])
        )
        try save(
            "foundation-collections",
            foundationArchive(
                [
                    "strings": NSMutableArray(array: ["a", "b"]), "intSet": NSSet(array: [1, 2]),
                    "doubles": NSDictionary(dictionary: ["k": 1]), "theme": "dark",
                    "nested": NSDictionary(dictionary: ["volume": 3, "names": ["x"]]),
                    "unknownFromNewerVersion": NSArray(array: [1, "two"]),
                ],
                schemaVersion: 3
            )
        )
        let tagArchive = try NSKeyedArchiver.archivedData(
            withRootObject: FuzzTag(name: "foundation", weight: 1, created: Date(timeIntervalSince1970: 5)),
            requiringSecureCoding: true
        )
        try save("foundation-tag", foundationArchive(["tag": NSData(data: tagArchive), "speed": 2]))

        // Format 2 by Foundation's archiver: an NSCoding object with typed fields.
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(FormatTwoRoot(), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        // corelibs' archiver ignores setClassName(_:for:): the class is renamed in the plist.
        var plist =
            try PropertyListSerialization.propertyList(from: archiver.encodedData, format: nil) as! [String: Any]
        plist["$objects"] = (plist["$objects"] as! [Any]).map { object -> Any in
            guard var description = object as? [String: Any],
                description["$classname"] as? String == NSStringFromClass(FormatTwoRoot.self)
            else { return object }
            description["$classname"] = "AppSettingsStoredSettings"
            description["$classes"] = ["AppSettingsStoredSettings", "NSObject"]
            return description
        }
        try save(
            "foundation-format-2", PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
        print("wrote \(count) files to \(directory.path)")
    }
}

/// Writes a stored set the way an `NSCoding` class would: numbers and Booleans with the typed
/// encoders (inline fields), everything else as objects.
final class FormatTwoRoot: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    init?(coder: NSCoder) { nil }
    func encode(with coder: NSCoder) {
        coder.encode(true, forKey: "bool")
        coder.encode(Int64(12), forKey: "int")
        coder.encode(0.5, forKey: "double")
        coder.encode(NSString(string: "from Foundation"), forKey: "string")
        coder.encode(NSDate(timeIntervalSinceReferenceDate: 1), forKey: "date")
        coder.encode(NSArray(array: ["a", "b"]), forKey: "strings")
        coder.encode(NSDictionary(dictionary: ["volume": 3, "names": ["x"]]), forKey: "nested")
        coder.encode(Int64(3), forKey: "$fromANewerVersion")  // the archiver escapes it as "$$…"
    }
}
