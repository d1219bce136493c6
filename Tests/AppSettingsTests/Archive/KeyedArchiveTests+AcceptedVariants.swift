import Foundation
import Testing

@testable import AppSettings

extension KeyedArchiveTests {
    // MARK: Accepted variants

    @Test func variantsOtherArchiversWriteAreAccepted() throws {
        func value(_ build: (inout HandMadeArchive) -> UInt32) throws -> StoredValue? {
            try StoredSetContents(Self.holding(build)).settings["value"]
        }
        #expect(
            try value { $0.object("NSDate", ["NS.time": .plain(.float(2))]) }
                == .date(.init(timeIntervalSinceReferenceDate: 2)))
        #expect(
            try value { $0.object("NSDate", ["NS.time": .plain(.integer(3))]) }
                == .date(.init(timeIntervalSinceReferenceDate: 3)))
        #expect(try value { $0.object("NSMutableString", ["NS.string": .plain(.string("m"))]) } == .string("m"))
        #expect(try value { $0.object("NSString", ["NS.string": .plain(.string("s"))]) } == .string("s"))
        #expect(try value { $0.object("NSMutableData", ["NS.data": .plain(.data(Data([9])))]) } == .data(Data([9])))
        #expect(try value { $0.object("NSMutableArray", ["NS.objects": .references([])]) } == .array([]))
        #expect(try value { $0.object("NSMutableSet", ["NS.objects": .references([])]) } == .set([]))
        #expect(try value { $0.object("NSMutableDictionary", [:]) } == .dictionary([:]))
        #expect(try value { $0.object("NSNull", [:]) } == .null)
        #expect(try value { _ in 0 } == .null)
        let relative = try value { archive in
            let baseString = archive.add(.string("https://example.com/dir/"))
            let base = archive.object("NSURL", ["NS.base": .reference(0), "NS.relative": .reference(baseString)])
            let file = archive.add(.string("file.txt"))
            return archive.object("NSURL", ["NS.base": .reference(base), "NS.relative": .reference(file)])
        }
        #expect(relative == .url(URL(string: "https://example.com/dir/file.txt")!))
        #expect(try StoredSetContents(Self.inline(.data(Data([7])))).settings["value"] == .data(Data([7])))
        #expect(try StoredSetContents(Self.inline(.unsignedInteger(.max))).settings["value"] == .unsignedInteger(.max))
    }

    /// The depth limit counts the levels below the root object: 64 nested arrays load, 65 do not.
    @Test func nestingIsAllowedUpToTheLimitAndNoDeeper() throws {
        func nested(_ levels: Int) -> Data {
            Self.holding { archive in
                var inner = archive.object("NSArray", ["NS.objects": .references([])])
                for _ in 1..<levels { inner = archive.object("NSArray", ["NS.objects": .references([inner])]) }
                return inner
            }
        }
        #expect(Self.refusal(nested(ArchiveFormat.maximumDepth)) == nil)
        #expect(Self.refusal(nested(ArchiveFormat.maximumDepth + 1))?.contains("nested deeper than 64 levels") == true)
    }
}
