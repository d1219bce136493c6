import Foundation

extension KeyedArchiveReader {
    /// Where a setting's value is: an object, or a number or Boolean stored inline in the field.
    enum Field {
        case object(uid: Int)
        case inline(plistIndex: Int)
    }

    /// The root object of a settings archive: its format fields and where each setting is, the
    /// values not yet decoded.
    struct ArchiveRoot {
        var formatVersion: Int64?
        var schemaVersion: Int64?
        /// Absent in format 1 and in archives not written by this library.
        var writeID: Int64?
        /// Absent in archives not saved to a store, and in those saved before generations.
        var generation: Int64?
        /// Where each replica's record is (``ArchiveFormat/replicaRecordFields``), by field.
        var records: [String: Field] = [:]
        /// Where the first format's `$cloudPending` is, when the set has it.
        var cloudPending: Field?
        /// Where `$schema` is, when the set carries one.
        var schema: Field?
        var settings: [(name: String, field: Field)] = []
    }

    /// The root of a settings set this version can read: an archive of a newer format is refused
    /// (its bytes are kept by the caller, never rewritten in a format that would lose its fields).
    mutating func readableRoot() throws(ArchiveFormatError) -> ArchiveRoot {
        let root = try root()
        if let format = root.formatVersion, format > ArchiveFormat.formatVersion {
            throw ArchiveFormatError(
                "it was written in format \(format) by a newer version of AppSettings; "
                    + "this version reads formats up to \(ArchiveFormat.formatVersion)")
        }
        return root
    }

    /// The settings set at the root, in either format (see ``ArchiveFormat``).
    mutating func root() throws(ArchiveFormatError) -> ArchiveRoot {
        guard let root = try objectDescription(uid: rootUID) else {
            throw ArchiveFormatError("the archive's root is not an object")
        }
        var set = ArchiveRoot()
        if root.className == "NSDictionary" || root.className == "NSMutableDictionary" {
            var fields: [String: Int] = [:]
            for entry in try dictionaryEntries(uid: rootUID) { fields[entry.key] = entry.valueUID }
            func integer(_ key: String) throws(ArchiveFormatError) -> Int64? {
                guard let uid = fields[key], case .integer(let found) = try value(uid: uid, depth: 1) else {
                    return nil
                }
                return found
            }
            set.formatVersion = try integer(ArchiveFormat.formatVersionKey)
            set.schemaVersion = try integer(ArchiveFormat.schemaVersionKey)
            guard let settingsUID = fields[ArchiveFormat.settingsKey] else {
                throw ArchiveFormatError("the archive has no settings dictionary")
            }
            set.settings = try dictionaryEntries(uid: settingsUID).map { ($0.key, .object(uid: $0.valueUID)) }
            return set
        }
        // Any other class is something else archived under the key, not a settings set.
        guard root.className == ArchiveFormat.rootClassName else {
            throw ArchiveFormatError("the archive's root is an object of class \(root.className), not a settings set")
        }
        set.settings.reserveCapacity(root.fields.count)
        for (key, plistIndex) in root.fields {
            switch key {
            case ArchiveFormat.formatVersionField: set.formatVersion = try integer(inField: plistIndex, named: key)
            case ArchiveFormat.schemaVersionField: set.schemaVersion = try integer(inField: plistIndex, named: key)
            case ArchiveFormat.writeIDField: set.writeID = try integer(inField: plistIndex, named: key)
            case ArchiveFormat.generationField: set.generation = try integer(inField: plistIndex, named: key)
            case _ where ArchiveFormat.replicaRecordFields.contains(key): set.records[key] = try field(plistIndex)
            case ArchiveFormat.cloudPendingField: set.cloudPending = try field(plistIndex)
            case ArchiveFormat.schemaField: set.schema = try field(plistIndex)
            case _ where key.hasPrefix("$$"): set.settings.append((String(key.dropFirst()), try field(plistIndex)))
            case _ where key.hasPrefix("$"): continue  // reserved by the archiver
            default: set.settings.append((key, try field(plistIndex)))
            }
        }
        return set
    }

    private func field(_ plistIndex: Int) throws(ArchiveFormatError) -> Field {
        if let uid = try referencedUID(inField: plistIndex) { return .object(uid: uid) }
        return .inline(plistIndex: plistIndex)
    }

    private func integer(inField plistIndex: Int, named name: String) throws(ArchiveFormatError) -> Int64 {
        guard case .integer(let value) = try inlineValue(inField: plistIndex) else {
            throw ArchiveFormatError("\(name) is not an integer")
        }
        return value
    }
}
