import Foundation
import Testing

@testable import AppSettings

/// Found values are named alike on every platform, whatever class Foundation made them with.
@Suite("Type names")
struct TypeNameTests {
    @Test func foundationObjectsAreNamedByTheirSwiftType() {
        #expect(foundTypeName(of: NSString(string: "a")) == "String")
        #expect(foundTypeName(of: NSMutableString(string: "a")) == "String")
        #expect(foundTypeName(of: "a" as AnyObject) == "String")
        #expect(foundTypeName(of: NSNumber(value: 1)) == "Int")
        #expect(foundTypeName(of: NSNumber(value: UInt8(1))) == "Int")
        #expect(foundTypeName(of: NSNumber(value: 1.5)) == "Double")
        #expect(foundTypeName(of: NSNumber(value: Float(1.5))) == "Double")
        #expect(foundTypeName(of: NSNumber(value: true)) == "Bool")
        #expect(foundTypeName(of: NSData()) == "Data")
        #expect(foundTypeName(of: NSDate()) == "Date")
        #expect(foundTypeName(of: NSURL(string: "https://example.com")!) == "URL")
        #expect(foundTypeName(of: NSUUID()) == "UUID")
        #expect(foundTypeName(of: NSArray(array: [1])) == "Array")
        #expect(foundTypeName(of: NSMutableArray()) == "Array")
        #expect(foundTypeName(of: NSDictionary()) == "Dictionary")
        #expect(foundTypeName(of: NSSet()) == "Set")
        #expect(foundTypeName(of: NSNull()) == "NSNull")
    }

    @Test func swiftValuesKeepTheirSwiftNames() {
        #expect(foundTypeName(of: 1) == "Int")
        #expect(foundTypeName(of: "a") == "String")
        #expect(foundTypeName(of: [1, 2]) == "Array<Int>")
        #expect(foundTypeName(of: Tag(name: "t")) == "Tag")
    }

    @Test func updateFromADictionaryNamesWhatItFound() {
        let settings = AudioSettings(userDefaults: TemporarySuite().userDefaults)
        #expect(throws: AppSettingsError.invalidDictionaryValue(setting: "volume", expected: "Int", found: "String")) {
            try settings.update(from: ["volume": NSString(string: "loud")])
        }
    }
}
