import Foundation
import Testing

@testable import AppSettings

extension KeyedArchiveTests {
    /// A property list whose top dictionary has the given entries, to break the archive's frame.
    private static func frame(_ entries: (inout BinaryPropertyListWriter) -> [(key: Object, value: Int)]) -> Data {
        var writer = BinaryPropertyListWriter()
        let pairs = entries(&writer)
        let keys = pairs.map { writer.add($0.key) }
        let top = writer.add(.dictionary(keys: keys, values: pairs.map(\.value)))
        return writer.serialized(top: top)
    }

    /// A frame with `$archiver`, `$objects` (`$null` and a string) and `$top` as given.
    private static func frame(
        archiver: Object? = .string("NSKeyedArchiver"),
        objects: [Object]? = [.string("$null"), .string("x")],
        top: [(key: Object, value: Object)]? = [(.string("root"), .uid(1))]
    ) -> Data {
        frame { writer in
            var entries: [(key: Object, value: Int)] = []
            if let archiver { entries.append((.string("$archiver"), writer.add(archiver))) }
            if let objects {
                let indices = objects.map { writer.add($0) }
                entries.append((.string("$objects"), writer.add(.array(indices))))
            }
            if let top {
                let keys = top.map { writer.add($0.key) }
                let values = top.map { writer.add($0.value) }
                entries.append((.string("$top"), writer.add(.dictionary(keys: keys, values: values))))
            }
            return entries
        }
    }

    // MARK: Refusals

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let data: Data
        let message: String
        var testDescription: String { name }
    }

    static let frameRefusals: [Refusal] = {
        let noRoot = "the archive has no valid root object"
        let notKeyed = "not an NSKeyedArchiver archive"
        let noObjects = "the archive has no $objects array"
        let notAString = "expected a string at object"
        return [
            Refusal(
                name: "root not a dictionary", data: PropertyListTree.array([]).serialized,
                message: "its root is not a dictionary"),
            Refusal(
                name: "key of the top dictionary not a string",
                data: frame { writer in [(.integer(1), writer.add(.integer(2)))] }, message: notAString),
            Refusal(name: "no $archiver", data: frame(archiver: nil), message: notKeyed),
            Refusal(name: "another $archiver", data: frame(archiver: .string("NSArchiver")), message: notKeyed),
            Refusal(name: "$archiver not a string", data: frame(archiver: .integer(1)), message: notAString),
            Refusal(name: "no $objects", data: frame(objects: nil), message: noObjects),
            Refusal(name: "empty $objects", data: frame(objects: []), message: noObjects),
            Refusal(
                name: "$objects not an array",
                data: frame { writer in
                    [
                        (.string("$archiver"), writer.add(.string("NSKeyedArchiver"))),
                        (.string("$objects"), writer.add(.string("objects"))),
                    ]
                }, message: noObjects),
            Refusal(name: "no $top", data: frame(top: nil), message: noRoot),
            Refusal(name: "$top without root", data: frame(top: [(.string("other"), .uid(1))]), message: noRoot),
            Refusal(name: "$top key not a string", data: frame(top: [(.integer(0), .uid(1))]), message: notAString),
            Refusal(name: "root not a UID", data: frame(top: [(.string("root"), .integer(1))]), message: noRoot),
            Refusal(name: "root UID out of range", data: frame(top: [(.string("root"), .uid(2))]), message: noRoot),
            Refusal(
                name: "$top not a dictionary",
                data: frame { writer in
                    [
                        (.string("$archiver"), writer.add(.string("NSKeyedArchiver"))),
                        (.string("$objects"), writer.add(.array([writer.add(.string("$null"))]))),
                        (.string("$top"), writer.add(.array([]))),
                    ]
                }, message: noRoot),
            Refusal(
                name: "root the $null object", data: frame(top: [(.string("root"), .uid(0))]),
                message: "object reference 0 does not name an object"),
            Refusal(name: "root a plain string", data: frame(), message: "the archive's root is not an object"),
            Refusal(
                name: "root a property-list array", data: frame(objects: [.string("$null"), .array([])]),
                message: "object 1 is not a valid archived object"),
        ]
    }()

    static let rootRefusals: [Refusal] = {
        var noSettings = HandMadeArchive()
        let noSettingsRoot = noSettings.dictionary(["formatVersion": noSettings.add(.integer(1))])
        var stringSettings = HandMadeArchive()
        let stringSettingsRoot = stringSettings.dictionary(["settings": stringSettings.add(.string("x"))])
        var arraySettings = HandMadeArchive()
        let array = arraySettings.object("NSArray", ["NS.objects": .references([])])
        let arraySettingsRoot = arraySettings.dictionary(["settings": array])
        var otherClass = HandMadeArchive()
        let otherClassRoot = otherClass.object("NSDate", ["NS.time": .plain(.double(5))])
        var schema = HandMadeArchive()
        let schemaRoot = schema.object(ArchiveFormat.rootClassName, ["$schemaVersion": .plain(.string("7"))])
        var format = HandMadeArchive()
        let formatRoot = format.object(ArchiveFormat.rootClassName, ["$formatVersion": .plain(.double(2))])
        var classless = HandMadeArchive()
        let classlessRoot = classless.add(.dictionary(keys: [], values: []))
        return [
            Refusal(
                name: "format 1 without settings", data: noSettings.finish(root: noSettingsRoot),
                message: "the archive has no settings dictionary"),
            Refusal(
                name: "format 1 settings a string", data: stringSettings.finish(root: stringSettingsRoot),
                message: "expected a dictionary object"),
            Refusal(
                name: "format 1 settings an array", data: arraySettings.finish(root: arraySettingsRoot),
                message: "expected an NSDictionary, found NSArray"),
            Refusal(
                name: "root of another class", data: otherClass.finish(root: otherClassRoot),
                message: "the archive's root is an object of class NSDate, not a settings set"),
            Refusal(
                name: "$schemaVersion a string", data: schema.finish(root: schemaRoot),
                message: "$schemaVersion is not an integer"),
            Refusal(
                name: "$formatVersion a real", data: format.finish(root: formatRoot),
                message: "$formatVersion is not an integer"),
            Refusal(
                name: "root without $class", data: classless.finish(root: classlessRoot),
                message: "object has no $class"),
        ]
    }()

    static let valueRefusals: [Refusal] = {
        let invalidObject = "is not a valid archived object"
        let cycle = "the archive's objects refer to each other in a cycle"
        return [
            Refusal(
                name: "$class not a reference",
                data: holding { $0.object("NSArray", ["$class": .plain(.string("NSArray"))]) },
                message: "expected an object reference"),
            Refusal(
                name: "$class out of range",
                data: holding { $0.object("NSArray", ["$class": .reference(999)]) },
                message: "object reference 999 is out of range"),
            Refusal(
                name: "class description a string",
                data: holding { archive in
                    let name = archive.add(.string("NSArray"))
                    return archive.object("NSArray", ["$class": .reference(name)])
                }, message: "class description is not a dictionary"),
            Refusal(
                name: "class description without $classname",
                data: holding { archive in
                    let description = archive.add(.dictionary(keys: [], values: []))
                    return archive.object("NSArray", ["$class": .reference(description)])
                }, message: "class description has no $classname"),
            Refusal(
                name: "$classname not a string",
                data: holding { archive in
                    let key = archive.plistIndex(of: .string("$classname"))
                    let number = archive.plistIndex(of: .integer(1))
                    let description = archive.add(.dictionary(keys: [key], values: [number]))
                    return archive.object("NSArray", ["$class": .reference(description)])
                }, message: "expected a string at object"),
            Refusal(
                name: "object without $class", data: holding { $0.add(.dictionary(keys: [], values: [])) },
                message: "object has no $class"),
            Refusal(
                name: "more keys than values",
                data: holding { archive in
                    let key = archive.add(.string("k"))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([])])
                }, message: "dictionary has 1 keys but 0 values"),
            Refusal(
                name: "dictionary key not a string",
                data: holding { archive in
                    let key = archive.add(.integer(1))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([key])])
                }, message: "dictionary key is not a string"),
            Refusal(
                name: "NS.objects not an array",
                data: holding { $0.object("NSArray", ["NS.objects": .plain(.integer(1))]) },
                message: "expected an array of object references"),
            Refusal(
                name: "NS.objects element not a reference",
                data: holding { archive in
                    let element = archive.plistIndex(of: .integer(1))
                    return archive.object("NSArray", ["NS.objects": .plain(.array([element]))])
                }, message: "expected an object reference"),
            Refusal(
                name: "reference out of range",
                data: holding { $0.object("NSArray", ["NS.objects": .references([9_999])]) },
                message: "object reference 9999 is out of range"),
            Refusal(
                name: "a property-list array as an object", data: holding { $0.add(.array([])) },
                message: invalidObject),
            Refusal(name: "a date as an object", data: holding { $0.add(.date(0)) }, message: invalidObject),
            Refusal(name: "a UID as an object", data: holding { $0.add(.uid(0)) }, message: invalidObject),
            Refusal(
                name: "a cycle through an array",
                data: holding { archive in
                    let array = archive.reserve()
                    return archive.object("NSArray", ["NS.objects": .references([array])], at: array)
                }, message: cycle),
            Refusal(
                name: "a cycle through a dictionary",
                data: holding { archive in
                    let dictionary = archive.reserve()
                    let key = archive.add(.string("self"))
                    return archive.object(
                        "NSDictionary", ["NS.keys": .references([key]), "NS.objects": .references([dictionary])],
                        at: dictionary)
                }, message: cycle),
            Refusal(
                name: "a graph that expands exponentially",
                data: holding { archive in
                    var level = archive.object("NSArray", ["NS.objects": .references([])])
                    for _ in 0..<40 { level = archive.object("NSArray", ["NS.objects": .references([level, level])]) }
                    return level
                }, message: "the archive expands to more objects than it can hold"),
            Refusal(
                name: "NSDate without NS.time", data: holding { $0.object("NSDate", [:]) },
                message: "NSDate has no NS.time"),
            Refusal(
                name: "NSDate with a string time",
                data: holding { $0.object("NSDate", ["NS.time": .plain(.string("now"))]) },
                message: "NSDate has no valid NS.time"),
            Refusal(
                name: "NSDate at NaN", data: holding { $0.object("NSDate", ["NS.time": .plain(.double(.nan))]) },
                message: "NSDate has a time that is not a finite number"),
            Refusal(
                name: "NSURL without NS.relative", data: holding { $0.object("NSURL", [:]) },
                message: "NSURL has no NS.relative string"),
            Refusal(
                name: "NSURL with a number as NS.relative",
                data: holding { archive in
                    let number = archive.add(.integer(1))
                    return archive.object("NSURL", ["NS.relative": .reference(number)])
                }, message: "NSURL has no NS.relative string"),
            Refusal(
                name: "NSURL with a string as NS.base",
                data: holding { archive in
                    let string = archive.add(.string("https://example.com/"))
                    return archive.object("NSURL", ["NS.base": .reference(string), "NS.relative": .reference(string)])
                }, message: "NSURL has an NS.base that is not a URL"),
            Refusal(
                name: "NSURL with an empty string",
                data: holding { archive in
                    let string = archive.add(.string(""))
                    return archive.object("NSURL", ["NS.relative": .reference(string)])
                }, message: "NSURL string is not a valid URL"),
            Refusal(
                name: "NSUUID without bytes", data: holding { $0.object("NSUUID", [:]) },
                message: "NSUUID has no 16-byte NS.uuidbytes"),
            Refusal(
                name: "NSUUID of 15 bytes",
                data: holding { $0.object("NSUUID", ["NS.uuidbytes": .plain(.data(Data(count: 15)))]) },
                message: "NSUUID has no 16-byte NS.uuidbytes"),
            Refusal(
                name: "NSString without NS.string", data: holding { $0.object("NSString", [:]) },
                message: "NSString has no NS.string"),
            Refusal(
                name: "NSMutableString with data",
                data: holding { $0.object("NSMutableString", ["NS.string": .plain(.data(Data()))]) },
                message: "NSMutableString has no NS.string"),
            Refusal(
                name: "NSData without NS.data", data: holding { $0.object("NSData", [:]) },
                message: "NSData has no NS.data"),
            Refusal(
                name: "a class no setting is stored as", data: holding { $0.object("NSValue", [:]) },
                message: "class NSValue is not one a setting can be stored as"),
            Refusal(
                name: "an inline string", data: inline(.string("inline")),
                message: "a field holds an inline value that is not a number, Boolean or data"),
            Refusal(
                name: "an inline array", data: inline(.array([])),
                message: "a field holds an inline value that is not a number, Boolean or data"),
            Refusal(
                name: "an inline date", data: inline(.date(0)),
                message: "a field holds an inline value that is not a number, Boolean or data"),
        ]
    }()

    @Test(arguments: frameRefusals + rootRefusals + valueRefusals)
    func eachRefusalIsReached(_ refusal: Refusal) {
        let error = Self.refusal(refusal.data)
        #expect(error?.contains(refusal.message) == true, "\(refusal.name): \(error ?? "read without an error")")
    }

    /// The frame the refusals above break, whole: it is read up to its root, a plain string.
    @Test func theFrameUnderTheRefusalsIsAKeyedArchive() throws {
        let reader = try KeyedArchiveReader(Self.frame())
        #expect(reader.rootUID == 1)
    }
}
