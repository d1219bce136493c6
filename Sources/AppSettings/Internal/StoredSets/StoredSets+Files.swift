import Foundation

extension StoredSets {
    /// What a domain holds under a settings key.
    package enum DomainEntry {
        case data(Data)
        case other(typeName: String)
        case unreadable(String)

        package init(_ value: Any) {
            if let data = value as? Data {
                self = .data(data)
            } else {
                self = .other(typeName: foundTypeName(of: value))
            }
        }
    }

    /// What is stored under `key`, read as the app reads it: under the domain's shared lock (so
    /// never half-way through another process's write), falling back on the recovery copy;
    /// `nil` when nothing is stored (or the key is not one a set can have).
    package static func lockedEntry(userDefaults: UserDefaults, key: String) -> DomainEntry? {
        guard (try? StoreNames.check(key: key)) != nil else { return nil }
        do {
            switch try SettingsStore(userDefaults: userDefaults, key: key).read(refresh: true)?.object {
            case nil: return nil
            case .data(let data)?: return .data(data)
            case .other(_, let typeName)?: return .other(typeName: typeName)
            }
        } catch {
            return .unreadable("\(error)")
        }
    }

    /// What a file holds: one set's archive (a Linux recovery copy gives its newest whole copy),
    /// or a domain's settings keys (a binary or XML property list).
    package enum FileContents {
        case archive(Data)
        case domain([String: DomainEntry])

        /// Tells the formats apart by content.
        package init(_ data: Data) throws(ArchiveFormatError) {
            if let copy = RecoveryCopyFormat.newestSlot(in: data) {
                self = .archive(copy.archive)
                return
            }
            if data.starts(with: Array("bplist".utf8)) {
                do {
                    self = try Self.binary(data)
                } catch {
                    throw ArchiveFormatError(error)
                }
                return
            }
            // XML (or an old-style) property list: Foundation's parser reports damage as an error.
            let object: Any
            do {
                object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            } catch {
                throw ArchiveFormatError("not a property list")
            }
            guard let domain = object as? [String: Any] else {
                throw ArchiveFormatError("the property list is not a dictionary")
            }
            guard domain["$archiver"] == nil else {
                throw ArchiveFormatError("an XML keyed archive; settings sets are stored as binary property lists")
            }
            var entries: [String: DomainEntry] = [:]
            for (key, value) in domain where key.hasPrefix(keyPrefix) {
                entries[key] = DomainEntry(value)
            }
            self = .domain(entries)
        }

        /// A binary property list, read with the library's own reader: its top dictionary either
        /// is an archive (`$archiver`) or maps keys to values.
        private static func binary(_ data: Data) throws(PropertyListFormatError) -> FileContents {
            let plist = try BinaryPropertyListReader(data)
            guard case .dictionary(let keys, let values) = try plist.object(at: plist.topObject) else {
                throw PropertyListFormatError("the property list is not a dictionary")
            }
            var entries: [String: DomainEntry] = [:]
            for (keyIndex, valueIndex) in zip(keys, values) {
                let key = try plist.string(at: keyIndex)
                if key == "$archiver" { return .archive(data) }
                guard key.hasPrefix(keyPrefix) else { continue }
                do {
                    switch try plist.object(at: valueIndex) {
                    case .data(let bytes): entries[key] = .data(bytes)
                    case .string: entries[key] = .other(typeName: "String")
                    case .bool: entries[key] = .other(typeName: "Bool")
                    case .integer, .unsignedInteger: entries[key] = .other(typeName: "Int")
                    case .float, .double: entries[key] = .other(typeName: "Double")
                    case .date: entries[key] = .other(typeName: "Date")
                    case .array, .set: entries[key] = .other(typeName: "Array")
                    case .dictionary: entries[key] = .other(typeName: "Dictionary")
                    case .uid: entries[key] = .other(typeName: "an archive reference")
                    }
                } catch {
                    entries[key] = .unreadable(error.description)
                }
            }
            return .domain(entries)
        }
    }
}
