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

    /// The stored properties read from the runtime's field metadata are `Mirror`'s children,
    /// class by class, with their offsets: where each `@Setting` keeps its slot.
    @Test func storedFieldsAreMirrorsChildrenClassByClass() throws {
        let objects: [AppSettingsObject] = [
            DerivedSettings(store: .inMemory(UUID().uuidString)),
            AllTypesSettings(store: .inMemory(UUID().uuidString)),
            CheckedSettings(store: .inMemory(UUID().uuidString)),
        ]
        for object in objects {
            var mirrorLevels: [[String]] = []
            var mirror: Mirror? = Mirror(reflecting: object)
            while let current = mirror, current.subjectType != AppSettingsObject.self {
                mirrorLevels.append(current.children.compactMap(\.label))
                mirror = current.superclassMirror
            }
            let levels = StoredFields.byClass(of: type(of: object), upTo: AppSettingsObject.self)
            #expect(levels.map { $0.map(\.name) } == mirrorLevels, "\(type(of: object))")
            let instance = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            for field in levels.joined() {
                let wrapper = try #require(field.type as? any _SettingWrapper.Type, "\(field.name)")
                let slot = readSlot(wrapper, at: instance + field.offset)
                #expect("_" + slot.name == field.name || slot.explicitStoredName != nil, "\(field.name)")
                #expect(object.slots.contains { $0 === slot })
            }
        }
    }

    private func readSlot<Wrapper: _SettingWrapper>(_: Wrapper.Type, at pointer: UnsafeRawPointer) -> AnySettingSlot {
        pointer.load(as: Wrapper.self)._slot
    }

    /// A settings class's name, which its key is made of: read from the mangled name where it has
    /// the top-level form (words the mangling abbreviates included), described by the runtime
    /// otherwise; the same as `String(describing:)` either way.
    @Test func settingsClassNamesAreTheRuntimesDescriptions() {
        final class Local: AppSettingsObject, @unchecked Sendable {}
        let topLevel: [AnyClass] = [
            MySettings.self, AudioSettings.self, AllTypesSettings.self, DerivedSettings.self,
            TestsAppSettings.self, SettingsTestsApp.self, ABCSettings.self, URLSettingsURL.self,
            snake_case_settings.self, Settings_2.self, X.self, Settings2Settings.self, AppAppApp.self,
            AlphaBetaGammaDeltaEpsilonZetaEtaThetaIotaKappaLambdaMuNuXiOmicronPiRhoSigmaTauUpsilonPhiChiPsiOmegaAlpha
                .self,
        ]
        let others: [AnyClass] = [Local.self, PrivateSettings.self, Outer.Inner.self, Generic<Int>.self]
        for type in topLevel + others + [AppSettingsObject.self, NSObject.self] {
            #expect(settingsClassName(of: type) == String(describing: type), "\(type)")
        }
        for type in topLevel {
            #expect(topLevelClassName(inMangledName: _mangledTypeName(type) ?? "") != nil, "\(type) read")
        }
        for type in others {
            #expect(topLevelClassName(inMangledName: _mangledTypeName(type) ?? "") == nil, "\(type) described")
        }
        #expect(topLevelClassName(inMangledName: "3Foo3BarC") == "Bar")
        #expect(topLevelClassName(inMangledName: "5MyApp02MyB0C") == "MyApp")
        let notTopLevelClasses = [
            "3Foo3Bar", "3Foo3BarV", "3Foo3BarCC", "3Foo9BarC", "3Foo3Bar3BazC", "3Foo0zC", "3Foo003BarC", "", "C",
        ]
        for other in notTopLevelClasses {
            #expect(topLevelClassName(inMangledName: other) == nil, "\(other)")
        }
    }
}

final class TestsAppSettings: AppSettingsObject, @unchecked Sendable {}
final class SettingsTestsApp: AppSettingsObject, @unchecked Sendable {}
final class ABCSettings: AppSettingsObject, @unchecked Sendable {}
final class URLSettingsURL: AppSettingsObject, @unchecked Sendable {}
// swift-format-ignore: TypeNamesShouldBeCapitalized
final class snake_case_settings: AppSettingsObject, @unchecked Sendable {}
final class Settings_2: AppSettingsObject, @unchecked Sendable {}
final class X: AppSettingsObject, @unchecked Sendable {}
final class Settings2Settings: AppSettingsObject, @unchecked Sendable {}
final class AppAppApp: AppSettingsObject, @unchecked Sendable {}
/// More than the 26 words a mangled name abbreviates.
final class AlphaBetaGammaDeltaEpsilonZetaEtaThetaIotaKappaLambdaMuNuXiOmicronPiRhoSigmaTauUpsilonPhiChiPsiOmegaAlpha:
    AppSettingsObject, @unchecked Sendable
{}
private final class PrivateSettings: AppSettingsObject, @unchecked Sendable {}
enum Outer {
    final class Inner: AppSettingsObject, @unchecked Sendable {}
}
final class Generic<Value>: AppSettingsObject, @unchecked Sendable {}
