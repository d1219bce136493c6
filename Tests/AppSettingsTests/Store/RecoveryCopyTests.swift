import Foundation
import Testing

@testable import AppSettings

/// The Linux recovery copy's two slots: the format on its own, then real saves through the store.
@Suite("Recovery copy", .capturedLibraryLog)
struct RecoveryCopyTests {
    private let first = Data("bplist00 the first archive".utf8)
    private let second = Data("bplist00 the second, a little longer".utf8)

    /// The file as it is once `write` is carried out over `file`.
    private func applying(_ write: RecoveryCopyFormat.Write, to file: Data?) -> Data {
        switch write {
        case .replace(let new): return new
        case .inPlace(let offset, let bytes):
            var file = file ?? Data()
            file.replaceSubrange(offset..<offset + bytes.count, with: bytes)
            return file
        }
    }

    /// A header whose generation cannot grow (damaged, or planted) must not make the next write
    /// older than the copy it replaces: the stale copy would then be the one restored.
    @Test func aGenerationAtItsMaximumNeverWrapsIntoAStaleCopy() throws {
        guard case .replace(var file) = RecoveryCopyFormat.write(first, over: nil) else {
            Issue.record("a first write makes the file")
            return
        }
        for (offset, field) in [
            (8, UInt64.max), (24, RecoveryCopyFormat.checksum(generation: .max, archive: first)),
        ] {
            withUnsafeBytes(of: field.littleEndian) { file.replaceSubrange(offset..<offset + 8, with: $0) }
        }
        #expect(RecoveryCopyFormat.newestSlot(in: file)?.generation == .max)
        let next = applying(RecoveryCopyFormat.write(second, over: file), to: file)
        #expect(RecoveryCopyFormat.newestArchive(in: next) == second)
        let afterThat = applying(RecoveryCopyFormat.write(first, over: next), to: next)
        #expect(RecoveryCopyFormat.newestArchive(in: afterThat) == first)
    }

    @Test func theFirstWriteMakesAFileOfTwoSlotsAndLaterOnesAlternateInPlace() throws {
        let made = RecoveryCopyFormat.write(first, over: nil)
        guard case .replace(let file) = made else {
            Issue.record("a first write makes the file: \(made)")
            return
        }
        #expect(file.count == 2 * RecoveryCopyFormat.pageSize)
        #expect(RecoveryCopyFormat.newestSlot(in: file) == .init(index: 0, generation: 1, archive: first))

        let secondWrite = RecoveryCopyFormat.write(second, over: file)
        #expect(secondWrite.inPlaceOffset == file.count / 2)
        let afterSecond = applying(secondWrite, to: file)
        #expect(afterSecond.count == file.count)
        #expect(RecoveryCopyFormat.newestSlot(in: afterSecond) == .init(index: 1, generation: 2, archive: second))

        let thirdWrite = RecoveryCopyFormat.write(first, over: afterSecond)
        #expect(thirdWrite.inPlaceOffset == 0)
        #expect(RecoveryCopyFormat.newestArchive(in: applying(thirdWrite, to: afterSecond)) == first)
    }

    /// A write cut short anywhere (a kill, a power loss: what reached the disk is some part of
    /// it) leaves the copy before it readable.
    @Test func aWriteCutShortLeavesTheCopyBeforeIt() throws {
        let file = applying(RecoveryCopyFormat.write(first, over: nil), to: nil)
        let write = RecoveryCopyFormat.write(second, over: file)
        guard case .inPlace(let offset, let bytes) = write else {
            Issue.record("expected a write in place: \(write)")
            return
        }
        for length in 0..<bytes.count {
            var torn = file
            torn.replaceSubrange(offset..<offset + length, with: bytes.prefix(length))
            #expect(RecoveryCopyFormat.newestArchive(in: torn) == first, "\(length) of \(bytes.count) bytes")
            // The next write goes to the slot the torn one left, never over the whole copy.
            let next = applying(RecoveryCopyFormat.write(second, over: torn), to: torn)
            #expect(RecoveryCopyFormat.newestSlot(in: next)?.generation == 2)
            #expect(RecoveryCopyFormat.newestArchive(in: next) == second)
        }
        // One byte changed anywhere in the newest slot: the other one is used.
        let whole = applying(write, to: file)
        for position in [offset, offset + 9, offset + 17, offset + 25, offset + bytes.count - 1] {
            var damaged = whole
            damaged[position] ^= 0x40
            #expect(RecoveryCopyFormat.newestArchive(in: damaged) == first, "byte \(position - offset)")
        }
    }

    @Test func aSetThatOutgrowsItsSlotsGetsANewFileAndTheGenerationGoesOn() throws {
        var file = applying(RecoveryCopyFormat.write(first, over: nil), to: nil)
        file = applying(RecoveryCopyFormat.write(second, over: file), to: file)
        let large = Data(repeating: 7, count: 3 * RecoveryCopyFormat.pageSize)
        let write = RecoveryCopyFormat.write(large, over: file)
        guard case .replace(let grown) = write else {
            Issue.record("a set larger than a slot makes a new file: \(write)")
            return
        }
        #expect(grown.count.isMultiple(of: 2 * RecoveryCopyFormat.pageSize))
        #expect(grown.count / 2 >= RecoveryCopyFormat.headerSize + large.count + large.count / 4)
        #expect(RecoveryCopyFormat.newestSlot(in: grown)?.generation == 3)
        #expect(RecoveryCopyFormat.newestArchive(in: grown) == large)
    }

    /// Earlier versions wrote the archive itself; a file that is neither is handed on as it is,
    /// so that its bytes are reported unreadable (and kept), not taken for nothing stored.
    @Test func aPlainArchiveOrAnUnknownFileIsReadAsItIsAndReplaced() throws {
        #expect(RecoveryCopyFormat.newestArchive(in: first) == first)
        #expect(RecoveryCopyFormat.write(second, over: first).inPlaceOffset == nil)
        let zeros = Data(count: 2 * RecoveryCopyFormat.pageSize)
        #expect(RecoveryCopyFormat.newestArchive(in: zeros) == zeros)
        #expect(RecoveryCopyFormat.write(second, over: zeros).inPlaceOffset == nil)
    }

    #if os(Linux)
        let suite = TemporarySuite()

        @Test func savesWriteTheCopyInPlaceAndALoadUsesTheNewestWholeSlot() throws {
            let settings = MySettings(userDefaults: suite.userDefaults)
            settings.theme = .dark
            try settings.synchronizeToUserDefaults()
            let url = try #require(settings.settingsStore.recoveryCopyURL(forKey: settings.userDefaultsKey))
            let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
            settings.theme = .light
            try settings.synchronizeToUserDefaults()
            // Written in place: the same file, two whole slots, the newer one this save.
            #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int == inode)
            let file = try Data(contentsOf: url)
            let newest = try #require(RecoveryCopyFormat.newestSlot(in: file))
            #expect(newest.generation == 2)
            #expect(newest.archive == suite.storedObject(forKey: settings.userDefaultsKey) as? Data)

            // The domain lost the key and the newest slot is damaged: the save before it loads.
            var damaged = file
            damaged[newest.index * file.count / 2 + RecoveryCopyFormat.headerSize + 4] ^= 0x40
            try damaged.write(to: url)
            suite.userDefaults.removeObject(forKey: settings.userDefaultsKey)
            suite.userDefaults.synchronize()
            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.lastLoadError == nil)
            #expect(reloaded.theme == .dark)
        }

        /// A power loss can leave the domain file torn under the key: corelibs still reads it, and
        /// the key's bytes are damaged. The whole recovery copy is the set then, and the next save
        /// backs the damaged bytes up before it replaces them.
        @Test func damagedBytesUnderTheKeyLoadTheRecoveryCopy() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            writer.soundLevel = 0.25
            try writer.synchronizeToUserDefaults()
            var torn = try #require(suite.storedObject(forKey: writer.userDefaultsKey) as? Data)
            torn.replaceSubrange(torn.count / 2..<torn.count, with: Data(count: torn.count - torn.count / 2))
            suite.userDefaults.set(torn, forKey: writer.userDefaultsKey)
            suite.userDefaults.synchronize()

            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.lastLoadError == nil)
            #expect(reloaded.theme == .dark && reloaded.soundLevel == 0.25)
            #expect(CapturedLibraryLog.lines.contains { $0.contains("could not be read from its UserDefaults domain") })
            // Unsaved, so that the next synchronization repairs the domain.
            #expect(reloaded.hasUnsavedChanges)

            reloaded.dontDimScreen = true
            try reloaded.synchronizeToUserDefaults()
            let domain = try #require(suite.another().dictionaryRepresentation() as [String: Any]?)
            let backups = domain.filter { $0.key.hasPrefix(writer.userDefaultsKey + ".unreadable-") }
            #expect(backups.values.map { $0 as? Data } == [torn])
            let loaded = MySettings(userDefaults: suite.another())
            #expect(loaded.theme == .dark && loaded.soundLevel == 0.25 && loaded.dontDimScreen)
        }

        // MARK: A set put back into the domain (issue 46)

        /// What a plain `UserDefaults` writer of other keys does to the domain: corelibs'
        /// `synchronize()` writes the whole domain it cached, an older set under the key included,
        /// in place over the file. The older bytes are put back the same way.
        private func putBack(_ bytes: Data, forKey key: String) {
            suite.userDefaults.set(bytes, forKey: key)
            #expect(suite.userDefaults.synchronize())
        }

        private func generationInDomain(forKey key: String) throws -> Int64? {
            try SettingsCodec.generation(of: try #require(suite.storedObject(forKey: key) as? Data))
        }

        /// Two saves (theme dark, then soundLevel 0.25), then the first one's set put back into the
        /// domain, as a plain writer that read the domain in between does.
        private func savedTwiceThenFirstPutBack() throws -> MySettings {
            let writer = MySettings(userDefaults: suite.userDefaults)
            let key = writer.userDefaultsKey
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let older = try #require(suite.storedObject(forKey: key) as? Data)
            writer.soundLevel = 0.25
            try writer.synchronizeToUserDefaults()
            #expect(try SettingsCodec.generation(of: older) == 1)
            #expect(try generationInDomain(forKey: key) == 2)
            putBack(older, forKey: key)
            return writer
        }

        @Test func anOlderSetPutBackIntoTheDomainLoadsTheCopyAndTheNextSaveWritesItBack() throws {
            let key = try savedTwiceThenFirstPutBack().userDefaultsKey

            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.lastLoadError == nil)
            #expect(reloaded.theme == .dark && reloaded.soundLevel == 0.25)
            #expect(
                CapturedLibraryLog.lines.contains {
                    $0.contains(
                        "\(key): its UserDefaults domain holds an older set (generation 1) than its recovery copy")
                        && $0.contains("(generation 2)")
                }, "\(CapturedLibraryLog.lines)")
            // Unsaved, so that the next synchronization writes the copy's set back.
            #expect(reloaded.hasUnsavedChanges)
            try reloaded.synchronizeToUserDefaults()
            #expect(try generationInDomain(forKey: key) == 3)
            let url = try #require(reloaded.settingsStore.recoveryCopyURL(forKey: key))
            try FileManager.default.removeItem(at: url)
            let fromDomain = MySettings(userDefaults: suite.another())
            #expect(fromDomain.theme == .dark && fromDomain.soundLevel == 0.25)
        }

        /// The save's merge reads the newer set too: what this object saved last is not taken for
        /// another writer's change, so the older set's values never come back.
        @Test func aSaveOverAnOlderSetPutBackMergesWithTheCopy() throws {
            let writer = try savedTwiceThenFirstPutBack()
            let key = writer.userDefaultsKey

            writer.dontDimScreen = true
            try writer.synchronizeToUserDefaults()
            #expect(writer.soundLevel == 0.25)
            #expect(try generationInDomain(forKey: key) == 3)
            let loaded = MySettings(userDefaults: suite.another())
            #expect(loaded.lastLoadError == nil)
            #expect(loaded.theme == .dark && loaded.soundLevel == 0.25 && loaded.dontDimScreen)
        }

        /// A set saved before generations put back over one saved since: the copy's, which has one.
        @Test func aSetWithoutAGenerationPutBackLoadsTheCopy() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            putBack(
                KeyedArchiveWriter.archive(schemaVersion: 0, settings: ["theme": .string("system")]),
                forKey: writer.userDefaultsKey)
            let reloaded = MySettings(userDefaults: suite.another())
            #expect(reloaded.lastLoadError == nil)
            #expect(reloaded.theme == .dark)
            #expect(CapturedLibraryLog.lines.contains { $0.contains("holds an older set (saved before generations)") })
        }

        /// Two different sets that no generation orders (the same generation, or the copy without
        /// one): the domain's loads, `lastLoadError` says so naming the copy, and the next save
        /// writes over both with a generation above either.
        @Test(arguments: [Int64?.some(4), nil])
        func twoSetsNothingOrdersLoadTheDomainsAndSaySo(copyGeneration: Int64?) throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            let key = writer.userDefaultsKey
            let url = try #require(writer.settingsStore.recoveryCopyURL(forKey: key))
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let copy = KeyedArchiveWriter.archive(
                schemaVersion: 0, generation: copyGeneration, settings: ["theme": .string("dark")])
            guard case .replace(let file) = RecoveryCopyFormat.write(copy, over: nil) else {
                Issue.record("a first write makes the file")
                return
            }
            try file.write(to: url)
            putBack(
                KeyedArchiveWriter.archive(schemaVersion: 0, generation: 4, settings: ["theme": .string("system")]),
                forKey: key)

            let reloaded = MySettings(userDefaults: suite.another())
            guard case .ambiguousStoredSet(let errorKey, let reason)? = reloaded.lastLoadError else {
                Issue.record("expected ambiguousStoredSet, got \(String(describing: reloaded.lastLoadError))")
                return
            }
            #expect(errorKey == key && reason.contains(url.path) && reason.contains("generation 4"), "\(reason)")
            #expect(reloaded.theme == .system)
            #expect(!reloaded.hasUnsavedChanges)

            reloaded.soundLevel = 0.25
            try reloaded.synchronizeToUserDefaults()
            #expect(try generationInDomain(forKey: key) == 5)
            let written = try #require(suite.storedObject(forKey: key) as? Data)
            #expect(RecoveryCopyFormat.newestArchive(in: try Data(contentsOf: url)) == written)
            let loaded = MySettings(userDefaults: suite.another())
            #expect(loaded.lastLoadError == nil)
            #expect(loaded.theme == .system && loaded.soundLevel == 0.25)
        }

        /// Every write of a set carries one more than the newest stored: the app's saves and the
        /// tool's edits alike.
        @Test func savesAndToolEditsCountTheGenerationOn() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            let key = writer.userDefaultsKey
            for (round, theme) in [Theme.dark, .system].enumerated() {
                writer.theme = theme
                try writer.synchronizeToUserDefaults()
                #expect(try generationInDomain(forKey: key) == Int64(round + 1))
            }
            try StoredSets.edit(userDefaults: suite.another(), key: key) { values, _ in
                values["theme"] = .string("light")
            }
            #expect(try generationInDomain(forKey: key) == 3)
            let url = try #require(writer.settingsStore.recoveryCopyURL(forKey: key))
            let copy = RecoveryCopyFormat.newestArchive(in: try Data(contentsOf: url))
            #expect(try SettingsCodec.generation(of: copy) == 3)
        }

        @Test func aCopyAnEarlierVersionWroteLoadsAndIsReplacedByTheNextSave() throws {
            let writer = MySettings(userDefaults: suite.userDefaults)
            writer.theme = .dark
            try writer.synchronizeToUserDefaults()
            let url = try #require(writer.settingsStore.recoveryCopyURL(forKey: writer.userDefaultsKey))
            try TestingHooks(object: writer).archivedBytes().write(to: url)
            suite.userDefaults.removeObject(forKey: writer.userDefaultsKey)
            suite.userDefaults.synchronize()

            let reader = MySettings(userDefaults: suite.another())
            #expect(reader.lastLoadError == nil)
            #expect(reader.theme == .dark)
            reader.theme = .light
            try reader.synchronizeToUserDefaults()
            #expect(RecoveryCopyFormat.newestSlot(in: try Data(contentsOf: url))?.generation == 1)
            #expect(MySettings(userDefaults: suite.another()).theme == .light)
        }
    #endif
}

extension RecoveryCopyFormat.Write {
    /// Where a write in place goes; `nil` for a new file.
    fileprivate var inPlaceOffset: Int? {
        guard case .inPlace(let offset, _) = self else { return nil }
        return offset
    }
}
