import Foundation
import Testing

@testable import AppSettings

/// The codec's entry points that need no settings class (what the inspector, the tool's edits
/// and the store watcher use): a set read by the kind of each value, written back with all it
/// carries kept, and the write ID and generation read alone.
@Suite("Settings codec without a class")
struct SettingsCodecTests {
    private static let cloud: CloudRecord = {
        var record = CloudRecord()
        record.stamps["theme"] = CloudStamp(counter: 3, tag: 7)
        record.refused["big"] = CloudStamp(counter: 2, tag: 9)
        record.account = "account-1"
        return record
    }()

    private static func storedArchive(writeID: Int64 = 11, generation: Int64? = nil) -> Data {
        KeyedArchiveWriter.archive(
            schemaVersion: 4, writeID: writeID, generation: generation,
            settings: ["theme": .string("dark"), "volume": .double(0.5), "$odd": .integer(-2)],
            records: [ArchiveFormat.cloudBaseField: cloud.storedValue], schema: "stored schema text")
    }

    @Test("a stored set is read by the kind of each value, with its schema version, record and schema")
    func readsWithoutAClass() throws {
        let set = try SettingsCodec.readStoredSet(Self.storedArchive(), readingSchema: true)
        #expect(set.schemaVersion == 4)
        #expect(set.values == ["theme": .string("dark"), "volume": .double(0.5), "$odd": .integer(-2)])
        #expect(set.unreadable.isEmpty)
        #expect(CloudRecord.decoded(from: set.records) == Self.cloud)
        #expect(set.schemaText == "stored schema text")
        #expect(try SettingsCodec.readStoredSet(Self.storedArchive()).schemaText == nil)
    }

    @Test("a set written back is the format's archive of it, byte for byte, but for a new write ID and the generation")
    func writesBackKeepingEverything() throws {
        let set = try SettingsCodec.readStoredSet(Self.storedArchive(generation: 6), readingSchema: true)
        let (data, writeID) = SettingsCodec.archive(
            set, replacingValuesWith: set.values, schema: set.schemaText, generation: 7)
        #expect(writeID != 11)
        #expect(data == Self.storedArchive(writeID: writeID, generation: 7))
        #expect(SettingsCodec.writeID(of: data) == writeID)
        #expect(try SettingsCodec.generation(of: data) == 7)

        var values = set.values
        values["theme"] = .string("light")
        let (edited, _) = SettingsCodec.archive(set, replacingValuesWith: values, schema: nil, generation: 8)
        let reread = try SettingsCodec.readStoredSet(edited, readingSchema: true)
        #expect(reread.values == values)
        #expect(CloudRecord.decoded(from: reread.records) == Self.cloud)
        #expect(reread.schemaVersion == 4)
        #expect(reread.schemaText == nil)
    }

    @Test("the write ID alone: nil for bytes that are no archive of the library")
    func writeIDAlone() {
        #expect(SettingsCodec.writeID(of: Self.storedArchive(writeID: 42)) == 42)
        #expect(SettingsCodec.writeID(of: Data("not an archive".utf8)) == nil)
        #expect(SettingsCodec.writeID(of: Data()) == nil)
    }

    /// What the store compares a domain's set and its recovery copy by: none for a set saved
    /// before generations (or not saved), an error for bytes that are no archive.
    @Test("the generation alone: nil for an archive without one, an error for bytes that are no archive")
    func generationAlone() throws {
        #expect(try SettingsCodec.generation(of: Self.storedArchive(generation: 42)) == 42)
        #expect(try SettingsCodec.generation(of: Self.storedArchive()) == nil)
        #expect(throws: ArchiveFormatError.self) { try SettingsCodec.generation(of: Data("not an archive".utf8)) }
    }

    @Test("a setting that cannot be read is named with its reason; the others are read")
    func unreadableSetting() throws {
        var archive = HandMadeArchive()
        let bad = archive.object("NSNowhere", [:])
        let good = archive.add(.string("fine"))
        let root = archive.object(
            ArchiveFormat.rootClassName, ["bad": .reference(bad), "good": .reference(good)])
        let set = try SettingsCodec.readStoredSet(archive.finish(root: root))
        #expect(set.values == ["good": .string("fine")])
        #expect(set.unreadable.map(\.name) == ["bad"])
        #expect(set.unreadable.first?.reason.contains("NSNowhere") == true)
    }
}
