import Foundation

/// The layout of a Linux recovery copy (`<key>.archive`): two slots, written in turns in place.
///
/// A save writes the new archive into the slot without the newest whole copy, then `fdatasync`s.
/// Overwriting a file's blocks without changing its size needs no journal commit, so this costs
/// a fraction of a temporary file, rename and directory flush; a slot interrupted mid-write fails
/// its checksum, and the other slot still holds the copy before it.
///
/// The file is `2 × slotSize` bytes, `slotSize` a multiple of 4 KiB. Each slot begins with a
/// 32-byte header: the magic `ASCopy\0\u{1}`, then, little-endian, the generation (one more at
/// every write), the archive's length and a checksum of the three; the archive follows. A set
/// that outgrows its slots (or a file that is not two-slot: none yet, a plain archive of an
/// older version, which is read as it is) gets a new file, written whole and renamed into place.
enum RecoveryCopyFormat {
    static let magic: [UInt8] = Array("ASCopy".utf8) + [0, 1]
    static let headerSize = 32
    /// Slot sizes are multiples of this (a page; a file system block).
    static let pageSize = 4096

    /// One slot whose header and checksum are whole.
    struct Slot: Equatable {
        var index: Int
        var generation: UInt64
        var archive: Data
    }

    /// The archive a reader should use: the newest whole slot's; for a plain archive (or a file
    /// that is neither, such as one damaged by hand), the file's bytes as they are, so that what
    /// cannot be read is reported and kept, never taken for nothing.
    static func newestArchive(in file: Data) -> Data {
        newestSlot(in: file)?.archive ?? file
    }

    /// The most bytes a copy file may have: one of a set as large as a domain may hold, with its
    /// two slots and their room to grow, is about 2.5 times that (a plain archive, at most once).
    /// A larger file is refused unread.
    static let maximumFileByteCount = 3 * SettingsStore.maximumDomainByteCount

    /// The archive in the file at `path`, as ``newestArchive(in:)`` reads it; `nil` when there is
    /// no file. The file is read as ``GuardedFile`` reads (no link, no FIFO or device, at most
    /// ``maximumFileByteCount`` bytes).
    static func archive(inFileAtPath path: String) throws(GuardedFile.Problem) -> Data? {
        try GuardedFile.read(path, limit: maximumFileByteCount).map(newestArchive(in:))
    }

    /// The whole slot with the highest generation, if any (`nil` also for a file that does not
    /// have two slots).
    static func newestSlot(in file: Data) -> Slot? {
        guard file.count >= 2 * pageSize, file.count % (2 * pageSize) == 0 else { return nil }
        let slots = (0..<2).compactMap { slot(at: $0, slotSize: file.count / 2, in: file) }
        return slots.max { $0.generation < $1.generation }
    }

    /// How a save writes `archive` over the file as it is now (`nil`: there is none).
    enum Write: Equatable {
        /// Bytes written at `offset` of the existing file, which is then flushed.
        case inPlace(offset: Int, bytes: Data)
        /// A new file, written whole and renamed over the old one.
        case replace(file: Data)
    }

    static func write(_ archive: Data, over existing: Data?) -> Write {
        let newest = existing.flatMap(newestSlot(in:))
        // A generation that cannot grow (a damaged or hostile header) gets a new file, so that
        // the older slot is never taken for the newer one.
        let generation = newest.map { $0.generation == .max ? 1 : $0.generation + 1 } ?? 1
        // One whole slot is enough to tell the layout: a write interrupted in the other one left
        // this one as it was.
        if let existing, let newest, newest.generation != .max, headerSize + archive.count <= existing.count / 2 {
            // The slot without the newest whole copy: the older one, or one a write left broken.
            let slot = InjectedFault.isInjected(.newestSlot) ? newest.index : 1 - newest.index
            return .inPlace(offset: slot * existing.count / 2, bytes: slotBytes(archive, generation: generation))
        }
        // Room for the set to grow by a quarter before the file is made anew.
        let needed = headerSize + archive.count + archive.count / 4
        let slotSize = (needed + pageSize - 1) / pageSize * pageSize
        var file = slotBytes(archive, generation: generation)
        file.append(Data(count: 2 * slotSize - file.count))
        return .replace(file: file)
    }

    // MARK: Slots

    private static func slot(at index: Int, slotSize: Int, in file: Data) -> Slot? {
        let start = file.startIndex + index * slotSize
        guard file[start..<start + magic.count].elementsEqual(magic) else { return nil }
        let generation = littleEndian(file, at: start + 8)
        let length = littleEndian(file, at: start + 16)
        guard length <= UInt64(slotSize - headerSize) else { return nil }
        let archive = file[start + headerSize..<start + headerSize + Int(length)]
        guard
            InjectedFault.isInjected(.noChecksum)
                || littleEndian(file, at: start + 24) == checksum(generation: generation, archive: archive)
        else {
            return nil
        }
        return Slot(index: index, generation: generation, archive: Data(archive))
    }

    private static func slotBytes(_ archive: Data, generation: UInt64) -> Data {
        var bytes = Data(capacity: headerSize + archive.count)
        bytes.append(contentsOf: magic)
        for field in [generation, UInt64(archive.count), checksum(generation: generation, archive: archive)] {
            withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(archive)
        return bytes
    }

    private static func littleEndian(_ data: Data, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in data[offset..<offset + 8].reversed() { value = value << 8 | UInt64(byte) }
        return value
    }

    /// A 64-bit checksum of the generation, the length and the archive: FNV-1a over 8-byte
    /// words, each mixed, and a final mix (a torn write leaves old or zero bytes in some part of
    /// the slot; any of them changes the sum).
    static func checksum(generation: UInt64, archive: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ word: UInt64) {
            hash = (hash ^ mix(word)) &* 0x0000_0100_0000_01b3
        }
        add(generation)
        add(UInt64(archive.count))
        archive.withUnsafeBytes { buffer in
            var offset = 0
            while offset + 8 <= buffer.count {
                add(UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            var tail: UInt64 = 0
            for (shift, byte) in buffer[offset...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
            add(tail)
        }
        return mix(hash)
    }

    /// MurmurHash3's 64-bit finalizer.
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value &*= 0xff51_afd7_ed55_8ccd
        value ^= value >> 33
        value &*= 0xc4ce_b9fe_1a85_ec53
        value ^= value >> 33
        return value
    }
}
