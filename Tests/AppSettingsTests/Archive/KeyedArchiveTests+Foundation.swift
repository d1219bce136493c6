import Foundation
import Testing

@testable import AppSettings

extension KeyedArchiveTests {
    // MARK: Foundation

    @Test func foundationsUnarchiverReadsWhatTheWriterWrites() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let data = KeyedArchiveWriter.archive(
            schemaVersion: 0,
            settings: [
                "flag": .bool(true), "count": .integer(-3), "level": .float(0.5), "ratio": .double(2.5),
                "name": .string("Grüße"), "bytes": .data(Data([1, 2])), "nothing": .null,
                "when": .date(Date(timeIntervalSinceReferenceDate: 100)),
                "link": .url(URL(string: "https://example.com/x")!), "id": .uuid(uuid),
                "list": .array([.integer(1), .string("a")]), "tags": .set([.string("t")]),
                "table": .dictionary(["k": .double(1.5)]), "huge": .unsignedInteger(.max),
            ])
        var plan: [String: FoundationField.Kind] = ["flag": .bool, "count": .int64, "level": .float, "ratio": .double]
        for name in ["name", "bytes", "nothing", "when", "link", "id", "list", "tags", "table", "huge"] {
            plan[name] = .object
        }
        let fields = try FoundationSetReader.read(data, decoding: plan)
        #expect(fields["flag"] as? Bool == true)
        #expect(fields["count"] as? Int64 == -3)
        #expect(fields["level"] as? Float == 0.5)
        #expect(fields["ratio"] as? Double == 2.5)
        #expect(fields["name"] as? String == "Grüße")
        #expect(fields["bytes"] as? Data == Data([1, 2]))
        #expect(fields["nothing"] is NSNull)
        #expect(fields["when"] as? Date == Date(timeIntervalSinceReferenceDate: 100))
        #expect((fields["link"] as? URL)?.absoluteString == "https://example.com/x")
        #expect((fields["id"] as? NSUUID)?.uuidString == uuid.uuidString)
        #expect((fields["list"] as? NSArray)?.isEqual(to: [1, "a"]) == true)
        #expect((fields["tags"] as? NSSet)?.isEqual(to: Set(["t"])) == true)
        let table = try #require(fields["table"] as? NSDictionary)
        #expect(table.count == 1)
        #expect((table.object(forKey: NSString(string: "k")) as? NSNumber)?.doubleValue == 1.5)
        #expect((fields["huge"] as? NSNumber)?.uint64Value == .max)
        // And its property-list layer is what Foundation's archiver writes around the objects.
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        #expect((plist["$version"] as? NSNumber)?.intValue == 100_000)
        #expect((plist["$objects"] as? [Any])?.first as? String == "$null")
    }

    @Test func theReaderReadsWhatFoundationsArchiverWrites() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let data = try FoundationSetWriter.archive([
            "flag": .bool(true), "count": .int64(-3), "level": .float(0.5), "ratio": .double(2.5),
            "name": .object(NSString(string: "Grüße")), "bytes": .object(NSData(data: Data([1, 2]))),
            "nothing": .object(NSNull()), "when": .object(NSDate(timeIntervalSinceReferenceDate: 100)),
            "link": .object(NSURL(string: "https://example.com/x")!),
            "id": .object(NSUUID(uuidString: uuid.uuidString)!),
            "list": .object(NSArray(array: [NSNumber(value: 1), NSString(string: "a")])),
            "tags": .object(NSSet(array: [NSString(string: "t")])),
            "table": .object(NSDictionary(dictionary: ["k": NSNumber(value: 1.5)])),
            "huge": .object(NSNumber(value: UInt64.max)),
        ])
        let read = try StoredSetContents(data)
        #expect(read.formatVersion == nil)
        let expected: [String: StoredValue] = [
            "flag": .bool(true), "count": .integer(-3), "level": .float(0.5), "ratio": .double(2.5),
            "name": .string("Grüße"), "bytes": .data(Data([1, 2])), "nothing": .null,
            "when": .date(Date(timeIntervalSinceReferenceDate: 100)),
            "link": .url(URL(string: "https://example.com/x")!), "id": .uuid(uuid),
            "list": .array([.integer(1), .string("a")]), "tags": .set([.string("t")]),
            "table": .dictionary(["k": .double(1.5)]), "huge": .unsignedInteger(.max),
        ]
        for (name, value) in expected {
            #expect(read.settings[name] == value, "\(name)")
        }
        #expect(read.settings.count == expected.count)
    }
}
