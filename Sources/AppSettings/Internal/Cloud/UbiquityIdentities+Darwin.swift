#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation

    /// The identifier of each iCloud identity this app has seen, told apart as Apple says tokens are
    /// (`ubiquityIdentityToken`: "If you stored or archived the previous token, compare that token to
    /// the newly obtained one using the isEqual(_:) method to determine if the users are the same or
    /// different"), never by their archives' bytes: a system that archives the same token otherwise
    /// must not read as another account, which would give every synced setting that account's values.
    ///
    /// A token seen for the first time gets the identifier earlier versions of the library gave it,
    /// its archive hashed, so that the accounts they recorded stay the same; the tokens seen are kept,
    /// archived with their identifiers, in a file of the library's own (``ProtectedData/directory``).
    enum UbiquityIdentities {
        typealias Seen = (token: any NSObjectProtocol, identifier: String, archive: Data)

        /// The tokens seen, read from the file once (tests forget them, as a new launch does).
        static let seen = Protected<[Seen]?>(nil)

        /// The identifier of `token`; `nil` when it cannot be told now (the file of the tokens seen
        /// cannot be read, or the token archived).
        static func identifier(of token: any NSCoding & NSObjectProtocol) -> String? {
            seen.withLock { seen -> String? in
                if seen == nil { seen = read() }
                guard let known = seen else { return nil }
                if let found = known.first(where: { $0.token.isEqual(token) }) { return found.identifier }
                guard
                    let archive = try? NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: false)
                else { return nil }
                let identifier = String(UInt64(bitPattern: Optional(StoredValue.data(archive)).tag), radix: 16)
                seen = known + [(token, identifier, archive)]
                write(seen ?? [])
                return identifier
            }
        }

        private static var file: URL? {
            ProtectedData.directory?.appendingPathComponent("ubiquity-identities.plist", isDirectory: false)
        }

        /// The tokens the file keeps; `nil` when it cannot be read now (before the first unlock, or
        /// while the device is locked, under the class of the app's container).
        private static func read() -> [Seen]? {
            guard let file else { return nil }
            let data: Data?
            do {
                data = try GuardedFile.read(file.path, limit: 1 << 20)
            } catch {
                Log.notice("the iCloud account cannot be told now: \(error)")
                return nil
            }
            guard let data else { return [] }
            let archives = (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Data]
            let seen: [Seen] = (archives ?? [:]).compactMap { identifier, archive in
                guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: archive) else { return nil }
                unarchiver.requiresSecureCoding = false
                guard let token = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? any NSObjectProtocol
                else { return nil }
                return (token, identifier, archive)
            }
            // What cannot be read is kept aside before the next token seen rewrites the file; where
            // it cannot be, the account is not told, so that nothing is written over it.
            guard archives == nil || seen.count < archives?.count ?? 0 else { return seen }
            let aside = file.deletingPathExtension().appendingPathExtension(
                "unreadable-\(Int(Date().timeIntervalSince1970 * 1000)).plist")
            do {
                try FileManager.default.moveItem(at: file, to: aside)
            } catch {
                Log.error("\(file.path) cannot be read, nor kept aside (\(error)): the iCloud account cannot be told")
                return nil
            }
            Log.error("\(file.path) could not be read whole: kept as \(aside.lastPathComponent)")
            return seen
        }

        private static func write(_ seen: [Seen]) {
            guard let file else { return }
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let archives = Dictionary(seen.map { ($0.identifier, $0.archive) }) { first, _ in first }
                let data = try PropertyListSerialization.data(fromPropertyList: archives, format: .binary, options: 0)
                try data.write(to: file, options: .atomic)
            } catch {
                Log.error("\(file.path): the iCloud identities seen could not be kept (\(error))")
            }
        }
    }
#endif
