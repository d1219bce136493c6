import Foundation

/// The version of one synced value: a counter each device raises past every counter it has seen
/// for the setting, and a tag (a hash of the value) that orders two writes made with the same
/// counter on two devices that had not seen each other's. No clock is involved: every device
/// orders two stamps alike, so every device ends with the value of the greatest stamp.
struct CloudStamp: Comparable, Hashable {
    var counter: Int64
    var tag: Int64

    static func < (lhs: CloudStamp, rhs: CloudStamp) -> Bool {
        (lhs.counter, lhs.tag) < (rhs.counter, rhs.tag)
    }

    /// The stamp of a write of `value` (cloud form, `nil` for `nil`) after the stamps seen.
    static func after(_ seen: [CloudStamp?], value: StoredValue?) -> CloudStamp {
        let counter = (seen.compactMap { $0?.counter }.max() ?? 0) + 1
        return CloudStamp(counter: counter, tag: value.tag)
    }
}

/// What a settings set knows about its synced settings' cloud values, kept in the stored archive
/// (`$cloudBase`; see ``ArchiveFormat``) so that a relaunch knows it too.
struct CloudRecord: Equatable {
    /// Per synced setting, the stamp of the value stored here. A setting without one was never
    /// written on this device nor taken from the cloud: it is never sent, and any cloud value wins.
    var stamps: [String: CloudStamp] = [:]
    /// Per synced setting the cloud refused, the stamp refused: not sent again until it changes.
    var refused: [String: CloudStamp] = [:]
    /// Per setting changed on this device, the stamp of the cloud value the change was made over,
    /// recorded when it was stamped (none: the device knew of none). A refused value never
    /// outranks a value the cloud holds: a cloud value with any other stamp was synced by another
    /// device the change never saw, and is taken, whatever its counter. Recorded at stamping, not
    /// at the refusal: by then the store may hold a value another device synced meanwhile.
    var madeOver: [String: CloudStamp] = [:]
    /// The account the stamps belong to (``CloudKeyValueStoreAccount/signedIn(_:)``), `nil` while
    /// the set has met none (its values are this device's own, sent to the first account met).
    var account: String?
    /// Synced settings whose values belong to another account than `account` (the set met a new
    /// one): never sent; the next pull gives them the new account's values or developer defaults.
    var foreign: Set<String> = []

    /// Whether there is anything to store.
    var isEmpty: Bool { stamps.isEmpty && refused.isEmpty && account == nil && foreign.isEmpty }

    /// Records a change of `name` on this device: its new stamp, and the stamp of the cloud value
    /// it was made over (`basis`); a refusal of an earlier value is forgotten.
    mutating func stampChange(of name: String, as stamp: CloudStamp, over basis: CloudStamp?) {
        stamps[name] = stamp
        refused[name] = nil
        madeOver[name] = basis
        foreign.remove(name)
    }

    /// Records that the value of `name` stamped `stamp` was refused.
    mutating func refuse(_ name: String, stamp: CloudStamp?) {
        refused[name] = stamp
    }

    /// Records that `name` holds the cloud's value stamped `stamp` (taken from the store), or
    /// none (`nil`: the setting is no longer synced): no refusal nor change of this device's left.
    mutating func take(_ name: String, stamp: CloudStamp?) {
        stamps[name] = stamp
        refused[name] = nil
        madeOver[name] = nil
    }

    /// Whether a pull would find nothing to take or to send for `name` while the store's local
    /// copy holds `held` (`nil`: nothing; `.some(nil)`: no property list, reported by pulls).
    func isSettled(_ name: String, holding held: CloudEnvelope??) -> Bool {
        let mine = stamps[name]
        switch held {
        case nil: return mine == nil || refused[name] == mine
        case .some(nil): return true
        case .some(.some(let theirs)):
            return theirs.stamp == mine || (!isOutranked(name, by: theirs.stamp) && refused[name] == mine)
        }
    }

    /// Whether the store's value stamped `theirs` outranks this device's value of `name`: its
    /// stamp is greater, or this device's was refused and the cloud has since synced another.
    func isOutranked(_ name: String, by theirs: CloudStamp) -> Bool {
        guard let mine = stamps[name] else { return true }
        if theirs > mine { return true }
        return refused[name] == mine && theirs != mine && theirs != madeOver[name]
    }
}

// The record as the archive stores it, under `$cloudBase`.
extension CloudRecord {
    /// The stored form, under `$cloudBase`: a dictionary with `$format` 2.
    var storedValue: StoredValue {
        func stampsValue(_ stamps: [String: CloudStamp]) -> StoredValue {
            .dictionary(stamps.mapValues { .array([.integer($0.counter), .integer($0.tag)]) })
        }
        var fields: [String: StoredValue] = [
            "$format": .integer(2), "stamps": stampsValue(stamps), "refused": stampsValue(refused),
        ]
        if !madeOver.isEmpty { fields["madeOver"] = stampsValue(madeOver) }
        if !foreign.isEmpty { fields["foreign"] = .array(foreign.sorted().map(StoredValue.string)) }
        if let account { fields["account"] = .string(account) }
        return .dictionary(fields)
    }

    /// Reads the stored form; the first format (a base of values, before versions) reads as an
    /// empty record: its settings count as never written here, and any cloud value wins.
    init(storedValue: StoredValue) throws(ArchiveFormatError) {
        guard case .dictionary(let fields) = storedValue else {
            throw ArchiveFormatError("\(ArchiveFormat.cloudBaseField) is not a dictionary")
        }
        guard fields["$format"] == .integer(2) else { return }
        func stamps(_ value: StoredValue?) throws(ArchiveFormatError) -> [String: CloudStamp] {
            guard case .dictionary(let entries)? = value else { return [:] }
            var result: [String: CloudStamp] = [:]
            for (name, entry) in entries {
                guard case .array(let parts) = entry, parts.count == 2, case .integer(let counter) = parts[0],
                    case .integer(let tag) = parts[1]
                else { throw ArchiveFormatError("the stamp of synced setting '\(name)' is damaged") }
                result[name] = CloudStamp(counter: counter, tag: tag)
            }
            return result
        }
        self.stamps = try stamps(fields["stamps"])
        self.refused = try stamps(fields["refused"])
        self.madeOver = try stamps(fields["madeOver"])
        if case .string(let account)? = fields["account"] { self.account = account }
        if case .array(let names)? = fields["foreign"] {
            for case .string(let name) in names { foreign.insert(name) }
        }
    }
}

/// A synced value as the cloud key holds it: `["$version": counter, "$tag": tag, "$value": value]`,
/// `$value` left out for `nil`. A key holding anything else (a value written by an earlier version
/// of the library, or by hand) reads as that value with counter 0.
struct CloudEnvelope: Equatable {
    var stamp: CloudStamp
    /// The value in cloud form; `nil` for `nil`.
    var value: StoredValue?

    var propertyListValue: Any? {
        var envelope: [String: Any] = ["$version": stamp.counter, "$tag": stamp.tag]
        if let value {
            guard let propertyList = value.propertyListValue else { return nil }
            envelope["$value"] = propertyList
        }
        return envelope
    }

    /// Reads a cloud key's property-list value; `nil` when it is not a property list.
    init?(propertyListValue: Any) {
        guard let stored = StoredValue(propertyListValue: propertyListValue) else { return nil }
        if case .dictionary(let fields) = stored, case .integer(let counter)? = fields["$version"],
            case .integer(let tag)? = fields["$tag"]
        {
            self.stamp = CloudStamp(counter: counter, tag: tag)
            self.value = fields["$value"]
        } else {
            self.value = stored.cloudValue
            self.stamp = CloudStamp(counter: 0, tag: self.value.tag)
        }
    }

    init(stamp: CloudStamp, value: StoredValue?) {
        self.stamp = stamp
        self.value = value
    }
}

extension StoredValue {
    /// The marker of `nil` inside an array or dictionary in cloud form: property lists have no null.
    static let cloudNull: StoredValue = .dictionary(["$null": .bool(true)])

    /// The value as a cloud key-value store holds it: property-list types only (a URL or UUID as
    /// its string, a set as an array, every real number as a `Double`, which is what a property
    /// list gives back, `nil` inside an array or dictionary as ``cloudNull``); `nil` for `nil`.
    var cloudValue: StoredValue? {
        switch self {
        case .null: nil
        case .float(let value): .double(Double(value))
        // Only in values read from JSON, which are typed before they are stored: as a number.
        case .numberText: withNumberTextRead
        case .url(let value): .string(value.absoluteString)
        case .uuid(let value): .string(value.uuidString)
        case .array(let values), .set(let values): .array(values.map { $0.cloudValue ?? Self.cloudNull })
        case .dictionary(let values): .dictionary(values.mapValues { $0.cloudValue ?? Self.cloudNull })
        case .bool, .integer, .unsignedInteger, .double, .string, .data, .date: self
        }
    }

    /// A cloud-form value back as a stored value a setting decodes (``cloudNull`` as `.null`).
    var fromCloudForm: StoredValue {
        switch self {
        case Self.cloudNull: .null
        case .array(let values), .set(let values): .array(values.map(\.fromCloudForm))
        case .dictionary(let values): .dictionary(values.mapValues(\.fromCloudForm))
        default: self
        }
    }

    /// Text that two equal cloud-form values share and two different ones do not, on every device.
    var canonicalText: String {
        switch self {
        case .null: "n"
        case .bool(let value): value ? "t" : "f"
        case .integer(let value): "i\(value)"
        case .unsignedInteger(let value): "u\(value)"
        case .numberText(let text): "I\(text)"
        case .float(let value): "d\(Double(value).bitPattern)"
        case .double(let value): "d\(value.bitPattern)"
        case .string(let value): "s\(value.utf8.count):\(value)"
        case .data(let value): "b\(value.base64EncodedString())"
        case .date(let value): "D\(value.timeIntervalSinceReferenceDate.bitPattern)"
        case .url(let value): "s\(value.absoluteString.utf8.count):\(value.absoluteString)"
        case .uuid(let value): "s36:\(value.uuidString)"
        case .array(let values), .set(let values): "[" + values.map(\.canonicalText).joined(separator: ",") + "]"
        case .dictionary(let values):
            "{"
                + values.sorted { $0.key < $1.key }.map { "\($0.key.utf8.count):\($0.key)=\($0.value.canonicalText)" }
                .joined(separator: ",") + "}"
        }
    }
}

extension Optional where Wrapped == StoredValue {
    /// The tag of a stamp: FNV-1a over the value's canonical text (the same on every device).
    var tag: Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (self?.canonicalText ?? "nil").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// The limits Apple documents for `NSUbiquitousKeyValueStore`, which `CloudKeyValueStoreSimulator`
/// (`AppSettingsTesting`) enforces and the library checks before it pushes a value.
///
/// Apple, `NSUbiquitousKeyValueStoreQuotaViolationChange`: "Your app can have no more than 1024
/// keys in the iCloud key-value store. The total amount of available storage space for all
/// values is 1 megabyte. The maximum size for a single value is 1 megabyte."
package enum CloudLimits {
    /// 1 MB for all keys and values of an app together.
    package static let maximumTotalByteCount = 1024 * 1024
    /// 1 MB for one value.
    package static let maximumValueByteCount = 1024 * 1024
    /// At most 1,024 keys.
    package static let maximumKeyCount = 1024
    /// A key of at most 64 bytes in UTF-8.
    package static let maximumKeyByteCount = 64

    /// The bytes a value takes: the size of its binary property list; `nil` when it is not a
    /// property-list value. A value whose `Data` alone is over the limit of one value is not
    /// measured further: its count is then the bytes of its `Data`, fewer than it takes, and it is
    /// refused all the same (swift-corelibs-foundation hands a `Data` inside a dictionary or an
    /// array over byte by byte, 0.15 s a megabyte, twice to measure it).
    package static func byteCount(of value: Any) -> Int? {
        let dataByteCount = dataByteCount(of: value)
        if dataByteCount > maximumValueByteCount { return dataByteCount }
        guard PropertyListSerialization.propertyList(value, isValidFor: .binary) else { return nil }
        return try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0).count
    }

    private static func dataByteCount(of value: Any) -> Int {
        switch value {
        case let data as Data: data.count
        case let values as [Any]: values.reduce(0) { $0 + dataByteCount(of: $1) }
        case let entries as [String: Any]: entries.values.reduce(0) { $0 + dataByteCount(of: $1) }
        default: 0
        }
    }

    /// Whether Apple's store takes `key` at all: at most 64 bytes in UTF-8.
    package static func isValidKey(_ key: String) -> Bool {
        key.utf8.count <= maximumKeyByteCount
    }

    /// Why the cloud would refuse `key` with a value of `byteCount` bytes on its own, or `nil`.
    package static func refusal(key: String, byteCount: Int?) -> String? {
        if key.utf8.count > maximumKeyByteCount {
            return "its iCloud key takes \(key.utf8.count) bytes, more than the \(maximumKeyByteCount)-byte limit"
        }
        guard let byteCount else { return "its value is not a property-list value" }
        if byteCount > maximumValueByteCount {
            let limit = maximumValueByteCount
            return "its value takes at least \(byteCount) bytes, more than the \(limit)-byte limit of one value"
        }
        return nil
    }
}

// The record as the archive carries it: the object's stored base and the codec carry the set's
// replica records unread; the sync coordinator reads and writes its own here.
extension CloudRecord {
    /// The record `records` carries: `nil` when it carries none, or one that cannot be read
    /// (logged; the next change notice takes the cloud's values as a new device does).
    static func decoded(from records: ReplicaRecords) -> CloudRecord? {
        guard let tree = records[ArchiveFormat.cloudBaseField] else { return nil }
        do {
            return try CloudRecord(storedValue: tree)
        } catch {
            Log.error("the stored record of synced settings could not be read (\(error)); it is rebuilt")
            return nil
        }
    }
}

extension CloudRecord? {
    /// Puts the record into `records` (an empty one, or none, stores nothing).
    func record(in records: inout ReplicaRecords) {
        records[ArchiveFormat.cloudBaseField] = self.flatMap { $0.isEmpty ? nil : $0.storedValue }
    }
}

extension StoredBase {
    /// The stored set's record of synced settings, read from what the base carries.
    var cloudRecord: CloudRecord? { CloudRecord.decoded(from: records) }
}
