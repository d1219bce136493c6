import Foundation

/// What a settings set knows about its synced settings' cloud values, kept in the stored archive
/// (`$cloudBase`, `$cloudPending`; see ``ArchiveFormat``) so that a relaunch knows it too.
struct CloudRecord: Equatable {
    /// Per synced setting, the value (in cloud form, see `_StoredValue.cloudValue`) the cloud and
    /// this set last agreed on; a setting without an entry was never agreed on, or the cloud held
    /// nothing. `nil` until the set received its first change notice from a cloud store (the
    /// initial sync): until then nothing is pushed.
    var base: [String: _StoredValue]?
    /// Synced settings stored with a change the cloud has not received yet.
    var pending: Set<String> = []

    /// Whether there is anything to store.
    var isEmpty: Bool { base == nil && pending.isEmpty }
}

extension _StoredValue {
    /// The value as a cloud key-value store holds it: property-list types only (a URL or UUID as
    /// its string, a set as an array, every real number as a `Double`, which is what a property
    /// list gives back); `nil` for `nil`, which is stored as the key's removal. Values are
    /// compared in this form, so a value does not count as changed by a round trip.
    var cloudValue: _StoredValue? {
        switch self {
        case .null: nil
        case .float(let value): .double(Double(value))
        case .url(let value): .string(value.absoluteString)
        case .uuid(let value): .string(value.uuidString)
        case .array(let values), .set(let values): .array(values.map { $0.cloudValue ?? .null })
        case .dictionary(let values): .dictionary(values.compactMapValues(\.cloudValue))
        case .bool, .integer, .unsignedInteger, .double, .string, .data, .date: self
        }
    }
}

/// The limits Apple documents for `NSUbiquitousKeyValueStore`, which ``CloudKeyValueStoreSimulator``
/// enforces and the library checks before it pushes a value.
enum CloudLimits {
    /// 1 MB for all keys and values of an app together.
    static let maximumTotalByteCount = 1024 * 1024
    /// 1 MB for one value.
    static let maximumValueByteCount = 1024 * 1024
    /// At most 1,024 keys.
    static let maximumKeyCount = 1024
    /// A key of at most 64 bytes in UTF-8.
    static let maximumKeyByteCount = 64

    /// The bytes a value takes: the size of its binary property list; `nil` when it is not a
    /// property-list value.
    static func byteCount(of value: Any) -> Int? {
        guard PropertyListSerialization.propertyList(value, isValidFor: .binary) else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0).count
    }

    /// Why the cloud would refuse `key` with a value of `byteCount` bytes on its own, or `nil`.
    static func refusal(key: String, byteCount: Int?) -> String? {
        if key.utf8.count > maximumKeyByteCount {
            return "its iCloud key takes \(key.utf8.count) bytes, more than the \(maximumKeyByteCount)-byte limit"
        }
        guard let byteCount else { return "its value is not a property-list value" }
        if byteCount > maximumValueByteCount {
            return "its value takes \(byteCount) bytes, more than the \(maximumValueByteCount)-byte limit of one value"
        }
        return nil
    }
}

extension CloudRecord {
    /// Reads `$cloudBase` and `$cloudPending`; `nil` when the set has neither. A damaged record
    /// is logged and read as none: the settings themselves load, and the next change notice
    /// takes the cloud's values as an initial sync does.
    init?(base: KeyedArchiveReader.Field?, pending: KeyedArchiveReader.Field?, in reader: inout KeyedArchiveReader) {
        guard base != nil || pending != nil else { return nil }
        do {
            if let base {
                guard case .dictionary(let values) = try reader.value(of: base, depth: 2) else {
                    throw ArchiveFormatError("\(ArchiveFormat.cloudBaseField) is not a dictionary")
                }
                self.base = values
            }
            if let pending {
                guard case .array(let names) = try reader.value(of: pending, depth: 2) else {
                    throw ArchiveFormatError("\(ArchiveFormat.cloudPendingField) is not an array")
                }
                for case .string(let name) in names { self.pending.insert(name) }
            }
        } catch {
            Log.error("the stored record of synced settings could not be read (\(error)); it is rebuilt")
            return nil
        }
    }
}
