import AppSettingsTesting
import Foundation
import ReflectionStrippedSettings
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
        let settings = AudioSettings(store: .inMemory(UUID().uuidString))
        #expect(throws: AppSettingsError.invalidDictionaryValue(setting: "volume", expected: "Int", found: "String")) {
            try settings.update(from: ["volume": NSString(string: "loud")])
        }
    }

    /// File names keep what `CharacterSet.alphanumerics` keeps (Unicode's letters, marks and
    /// numbers) and `-`, `_`, `.`, `@`; everything else becomes `_`.
    @Test func fileNameComponentsKeepLettersMarksAndNumbers() {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.@"))
        let samples = "aZ09-_.@ /\\:*?\"<>|é日ß٣Ⅳ½\u{301}✓€ \t\u{7F}😀ǅʰ"
        for scalar in samples.unicodeScalars {
            let expected = allowed.contains(scalar) ? String(scalar) : "_"
            #expect(fileNameComponent("x" + String(scalar)) == "x" + expected, "U+\(String(scalar.value, radix: 16))")
        }
        #expect(fileNameComponent("") == "_")
        #expect(fileNameComponent(".hidden") == "_.hidden")
        #expect(fileNameComponent("AppSettings.My Settings/1") == "AppSettings.My_Settings_1")
    }

    /// The settings found by reflection, class by class: every `@Setting` of the object, each
    /// named as its property, the object's own class first.
    @Test func storedFieldsAreTheSettingsClassByClass() throws {
        let objects: [AppSettingsObject] = [
            DerivedSettings(store: .inMemory(UUID().uuidString)),
            AllTypesSettings(store: .inMemory(UUID().uuidString)),
            CheckedSettings(store: .inMemory(UUID().uuidString)),
        ]
        // Found by their registered slots' wrapper types, as at initialization, or else by a cast.
        for (object, registered) in objects.flatMap({ [($0, $0.slots), ($0, [])] }) {
            let levels = StoredFields.byClass(of: object, upTo: AppSettingsObject.self, registered: registered)
            #expect(levels.joined().count == object.slots.count, "\(type(of: object))")
            // The superclass's settings come first in the object's order.
            #expect(
                levels.reversed().joined().map { ObjectIdentifier($0.slot) } == object.slots.map(ObjectIdentifier.init))
            for field in levels.joined() {
                #expect("_" + field.slot.name == field.name || field.slot.explicitStoredName != nil, "\(field.name)")
            }
        }
        #expect(
            StoredFields.byClass(of: DerivedSettings(store: .inMemory("d")), upTo: AppSettingsObject.self).count == 2)
    }

    /// A settings class's name, which its key is made of: the runtime's description of the class.
    @Test func settingsClassNamesAreTheRuntimesDescriptions() {
        final class Local: AppSettingsObject, @unchecked Sendable {}
        let types: [AnyClass] = [
            MySettings.self, AudioSettings.self, AllTypesSettings.self, DerivedSettings.self, X.self,
            Local.self, PrivateSettings.self, Outer.Inner.self, Generic<Int>.self,
        ]
        for type in types + [AppSettingsObject.self, NSObject.self] {
            #expect(settingsClassName(of: type) == String(describing: type), "\(type)")
        }
        #expect(Outer.Inner(store: .inMemory("i")).userDefaultsKey == "AppSettings.Inner")
        #expect(X(store: .inMemory("x")).userDefaultsKey == "AppSettings.X")
    }
}

final class X: AppSettingsObject, @unchecked Sendable {}
private final class PrivateSettings: AppSettingsObject, @unchecked Sendable {}
enum Outer {
    final class Inner: AppSettingsObject, @unchecked Sendable {}
}
final class Generic<Value>: AppSettingsObject, @unchecked Sendable {}

/// A class built without reflection metadata: its settings cannot be named, so nothing is stored
/// or loaded, and the error says why (rather than an empty set stored silently).
@Suite("Reflection metadata")
struct ReflectionMetadataTests {
    @Test func settingsOfAClassWithoutReflectionMetadataAreReported() throws {
        let (settings, lines) = AppSettingsLog.capture { StrippedSettings(store: .inMemory(UUID().uuidString)) }
        #expect(lines.first?.contains("StrippedSettings declares settings that reflection cannot see") == true)
        // The setting works in memory.
        #expect(settings.volume == 3)
        settings.volume = 4
        #expect(settings.volume == 4)
        #expect(settings.hasUnsavedChanges)
        #expect(throws: AppSettingsError.settingsNotFound(settingsClass: "StrippedSettings")) {
            try settings.synchronizeToUserDefaults()
        }
        #expect(settings.userDefaults.object(forKey: settings.userDefaultsKey) == nil)
    }
}
