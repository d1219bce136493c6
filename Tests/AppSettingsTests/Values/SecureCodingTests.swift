import Foundation
import Testing

@testable import AppSettings

/// Values of `NSSecureCoding` classes are read by the library's own decoder: damaged or hostile
/// nested archives give the developer default and an error, never a stopped process.
@Suite("Secure coding")
struct SecureCodingTests {
    let suite = TemporarySuite.forSettings()

    private static let chainClassName = NSStringFromClass(Chain.self)

    /// A nested archive whose root is a `Chain`-class object with the given fields.
    private static func chainArchive(_ build: (inout HandMadeArchive) -> UInt32) -> Data {
        var archive = HandMadeArchive()
        let root = build(&archive)
        return archive.finish(root: root)
    }

    @Test func aTagRoundTripsThroughTheStore() throws {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        settings.tag = Tag(name: "important")
        let (loaded, error) = TestingHooks(object: settings).loadCopy(
            fromStoredBytes: try TestingHooks(object: settings).archivedBytes())
        #expect(error == nil)
        #expect((loaded as? AllTypesSettings)?.tag.name == "important")
    }

    @Test func whatFoundationArchivesIsRead() throws {
        let leaf = Chain(name: "leaf", note: "ünïcode 🌍", count: -7, flag: true, weight: 2.5)
        let chain = Chain(
            name: "root", count: Int.max, weight: -1e300, next: leaf,
            children: [Chain(name: "a"), leaf, Chain(name: "b", next: Chain(name: "c"))]
        )
        let data = try NSKeyedArchiver.archivedData(withRootObject: chain, requiringSecureCoding: true)
        let decoded = try Chain.value(from: .data(data))
        #expect(decoded == chain)
        #expect(decoded.note == nil)
        // One archived object is one decoded object, as with NSKeyedUnarchiver.
        #expect(decoded.next === decoded.children[1])
        // And what the library stores, it reads back.
        #expect(try Chain.value(from: Chain.storedValue(of: chain)) == chain)
    }

    @Test func aFieldOfAnotherClassGivesTheDefaultAndAnError() {
        // The shape of Fuzz/crashes/secure-coding-field-of-other-class: `name` holds an NSDate.
        let tagArchive = Self.chainArchive { archive in
            let date = archive.object("NSDate", ["NS.time": .plain(.double(0))])
            return archive.object(NSStringFromClass(Tag.self), ["name": .reference(date)])
        }
        var archive = HandMadeArchive()
        let root = archive.settingsRoot([
            "tag": archive.add(.data(tagArchive)), "string": archive.add(.string("kept")),
        ])
        let template = AllTypesSettings(userDefaults: suite.userDefaults)
        let (loaded, error) = TestingHooks(object: template).loadCopy(fromStoredBytes: archive.finish(root: root))
        let settings = loaded as? AllTypesSettings
        #expect(settings?.tag.name == "none")
        #expect(settings?.string == "kept")
        guard case .unreadableSettings(_, let names, let reasons) = error else {
            Issue.record("expected unreadableSettings, got \(String(describing: error))")
            return
        }
        #expect(names == ["tag"])
        #expect(reasons.first?.contains("NSDate") == true)
    }

    @Test func aMissingOptionalFieldIsNil() throws {
        let data = Self.chainArchive { archive in
            archive.object(Self.chainClassName, ["name": .reference(archive.add(.string("only a name")))])
        }
        let chain = try Chain.value(from: .data(data))
        #expect(chain == Chain(name: "only a name"))
    }

    @Test func aMissingRequiredFieldIsAMismatch() {
        let data = Self.chainArchive { archive in
            archive.object(Self.chainClassName, ["note": .reference(archive.add(.string("no name")))])
        }
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(data)) }
    }

    @Test func primitivesOfAnotherTypeDecodeAsZero() throws {
        let data = Self.chainArchive { archive in
            archive.object(
                Self.chainClassName,
                [
                    "name": .reference(archive.add(.string("x"))), "count": .plain(.string("many")),
                    "flag": .plain(.data(Data([1]))), "weight": .reference(archive.add(.double(3))),
                ])
        }
        let chain = try Chain.value(from: .data(data))
        #expect(chain.count == 0)
        #expect(chain.flag == false)
        #expect(chain.weight == 0)
    }

    @Test func anElementOfAnUnrequestedClassIsAMismatch() {
        let data = Self.chainArchive { archive in
            let stranger = archive.object(NSStringFromClass(Tag.self), ["name": .reference(archive.add(.string("t")))])
            let children = archive.object("NSArray", ["NS.objects": .references([stranger])])
            return archive.object(
                Self.chainClassName, ["name": .reference(archive.add(.string("x"))), "children": .reference(children)])
        }
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(data)) }
    }

    @Test(arguments: [1, 2, 3])
    func cyclesAreRefused(length: Int) {
        let data = Self.chainArchive { archive in
            let uids = (0..<length).map { _ in archive.reserve() }
            for (index, uid) in uids.enumerated() {
                archive.object(
                    Self.chainClassName,
                    [
                        "name": .reference(archive.add(.string("\(index)"))),
                        "next": .reference(uids[(index + 1) % length]),
                    ],
                    at: uid
                )
            }
            return uids[0]
        }
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(data)) }
    }

    @Test func aCycleThroughAnArrayIsRefused() {
        let data = Self.chainArchive { archive in
            let rootUID = archive.reserve()
            let children = archive.object("NSArray", ["NS.objects": .references([rootUID])])
            return archive.object(
                Self.chainClassName, ["name": .reference(archive.add(.string("x"))), "children": .reference(children)],
                at: rootUID)
        }
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(data)) }
    }

    private static func nestedChain(depth: Int) -> Data {
        chainArchive { archive in
            var next: UInt32?
            for level in 0..<depth {
                var fields: [String: HandMadeArchive.Fields] = ["name": .reference(archive.add(.string("\(level)")))]
                if let next { fields["next"] = .reference(next) }
                next = archive.object(chainClassName, fields)
            }
            return next!
        }
    }

    @Test func deepNestingIsRefused() throws {
        let shallow = try Chain.value(from: .data(Self.nestedChain(depth: 30)))
        #expect(shallow.name == "29")
        #expect(throws: StoredValueMismatch.self) {
            try Chain.value(from: .data(Self.nestedChain(depth: ArchiveFormat.maximumDepth + 2)))
        }
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(Self.nestedChain(depth: 10_000))) }
    }

    @Test func aRootOfAnotherClassIsAMismatch() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: Tag(name: "x"), requiringSecureCoding: true)
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(data)) }
        let string = try NSKeyedArchiver.archivedData(
            withRootObject: NSString(string: "x"), requiringSecureCoding: true)
        #expect(throws: StoredValueMismatch.self) { try Chain.value(from: .data(string)) }
    }

    @Test func subclassesSupportSecureCodingWithOrWithoutTheOverride() throws {
        #expect(AudioSettings.supportsSecureCoding)
        #expect((ExplicitlySecureSettings.self as any NSSecureCoding.Type).supportsSecureCoding)
        let settings = ExplicitlySecureSettings(userDefaults: suite.userDefaults)
        settings.level = 7
        let data = try NSKeyedArchiver.archivedData(withRootObject: settings, requiringSecureCoding: true)
        let decoded = try SecureArchiveDecoder.decodeRoot(ExplicitlySecureSettings.self, from: data)
        #expect(decoded.level == 7)
    }

    @Test func everyKeyedEntryPointRoundTripsThroughTheStore() throws {
        let settings = GaugeSettings(userDefaults: suite.userDefaults)
        let gauge = Gauge(
            bytes: Data([0, 1, 2, 255]), cInt: -5, int32: .min, int64: .max, float: 0.25, label: "ünï")
        settings.gauge = gauge
        try settings.synchronizeToUserDefaults()
        let loaded = GaugeSettings(userDefaults: suite.userDefaults)
        #expect(loaded.lastLoadError == nil)
        #expect(loaded.gauge == gauge)
    }

    private static func gaugeArchive(bytes: HandMadeArchive.Fields, unkeyed: Bool = false) -> Data {
        chainArchive { archive in
            var fields: [String: HandMadeArchive.Fields] = [
                "bytes": bytes, "cInt": .plain(.integer(1)), "int32": .plain(.integer(2)),
                "int64": .plain(.integer(3)), "float": .plain(.double(4)),
                "label": .reference(archive.add(.string("hand-made"))),
            ]
            if unkeyed { fields["unkeyed"] = .plain(.integer(0)) }
            return archive.object(NSStringFromClass(Gauge.self), fields)
        }
    }

    @Test func aHandMadeArchiveDecodesThroughEachEntryPoint() throws {
        let gauge = try Gauge.value(from: .data(Self.gaugeArchive(bytes: .plain(.data(Data([9, 8]))))))
        #expect(gauge == Gauge(bytes: Data([9, 8]), cInt: 1, int32: 2, int64: 3, float: 4, label: "hand-made"))
    }

    @Test func aBytesFieldOfAnotherTypeIsAMismatch() {
        let data = Self.gaugeArchive(bytes: .plain(.string("not bytes")))
        #expect(throws: StoredValueMismatch.self) { try Gauge.value(from: .data(data)) }
    }

    @Test func anUnkeyedRequestFailsTheValueWithoutStoppingTheProcess() {
        let data = Self.gaugeArchive(bytes: .plain(.data(Data())), unkeyed: true)
        #expect(throws: ArchiveFormatError.self) { try SecureArchiveDecoder.decodeRoot(Gauge.self, from: data) }
        #expect(throws: StoredValueMismatch.self) { try Gauge.value(from: .data(data)) }
    }

    @Test func arraysAndDictionariesOfRequestedClassesDecode() throws {
        func archive(listElement: BinaryPropertyListWriter.Object) -> Data {
            Self.chainArchive { archive in
                let list = archive.object("NSArray", ["NS.objects": .references([archive.add(listElement)])])
                let map = archive.dictionary(["k": archive.add(.integer(1))])
                return archive.object(
                    NSStringFromClass(CollectionProbe.self), ["list": .reference(list), "map": .reference(map)])
            }
        }
        let probe = try SecureArchiveDecoder.decodeRoot(CollectionProbe.self, from: archive(listElement: .string("a")))
        #expect(probe.list as? [String] == ["a"])
        #expect(probe.map as? [String: Int] == ["k": 1])
        #expect(throws: ArchiveFormatError.self) {
            try SecureArchiveDecoder.decodeRoot(CollectionProbe.self, from: archive(listElement: .integer(1)))
        }
    }

    @Test func aFoundationClassSettingFailsToSaveInsteadOfNeverLoading() throws {
        let settings = FoundationObjectSettings(userDefaults: suite.userDefaults)
        settings.note = "changed"
        #expect(SecureArchiveDecoder.canDecode(NSString.self))
        #expect(SecureArchiveDecoder.canDecode(Gauge.self))
        #expect(!SecureArchiveDecoder.canDecode(NSDateComponents.self))
        do {
            try settings.synchronizeToUserDefaults()
            Issue.record("saving an NSDateComponents setting succeeded")
        } catch AppSettingsError.encodingFailed(_, let setting, let reason) {
            #expect(setting == "components")
            #expect(reason.contains("NSDateComponents"))
        }
        // Nothing was written, and the change is still unsaved.
        #expect(settings.hasUnsavedChanges)
        #expect(FoundationObjectSettings(userDefaults: suite.userDefaults).note == "kept")
    }

    @Test func foundationClassesAreNeverInstantiatedByName() {
        // `NSDateComponents` conforms to NSSecureCoding, but its initializer needs NSKeyedUnarchiver.
        let data = Self.chainArchive { archive in
            archive.object("NSDateComponents", ["NS.year": .plain(.integer(2000))])
        }
        #expect(throws: ArchiveFormatError.self) {
            try SecureArchiveDecoder.decodeRoot(NSDateComponents.self, from: data)
        }
    }
}
