// Linux: the domain's file, written as CoreFoundation writes it but never in place (corelibs
// truncates and rewrites it, so a kill in between loses every key): a new file in the same
// directory, flushed, renamed over the old one, and the directory flushed.
#if os(Linux) && !APPLE_STAND_INS
    import CoreFoundation
    import Foundation
    import Glibc

    /// The changes a writer set for a domain and has not written yet: what ``DomainFile/write(_:at:)``
    /// applies to the file. Only writers holding the domain's exclusive lock set them.
    final class PendingDomainChanges: @unchecked Sendable {
        /// The changes in order; `nil` removes the key. `Any`, so behind the lock.
        private let changes = Protected<[(key: String, value: Any?)]>([])
        /// Why the last write failed, for ``PreferencesDomain/synchronizeFailure``.
        let lastFailure = Protected<DomainFile.Failure?>(nil)

        func set(_ value: Any?, forKey key: String) { changes.withLock { $0.append((key, value)) } }

        /// The changes set so far; none are left behind.
        func take() -> [(key: String, value: Any?)] {
            changes.withLock { changes in
                defer { changes = [] }
                return changes
            }
        }
    }

    /// What a domain file write found and did.
    enum DomainFile {
        /// Why a write stopped; ``replaced`` tells whether the new file was already in place.
        struct Failure: Error {
            var reason: String
            var replaced = false
        }

        /// What the domain file holds now, as CoreFoundation reads it.
        enum Contents {
            /// No file, or an empty one (CoreFoundation reads both as an empty domain).
            case none
            case dictionary(CFDictionary)
            /// Bytes CoreFoundation reads as an empty domain: not a property-list dictionary.
            case damaged(Data)
        }

        /// The most the library reads of a domain file: twice what a domain may hold.
        static let maximumByteCount = 2 * SettingsStore.maximumDomainByteCount

        /// Reads the domain's file as CoreFoundation does (`CFPropertyListCreateWithData`, XML or
        /// binary), never through a link or blocking.
        static func contents(at path: String) throws(Failure) -> Contents {
            let data: Data?
            do {
                data = try GuardedFile.read(path, limit: maximumByteCount)
            } catch {
                throw Failure(reason: "could not read \(path): \(error)")
            }
            guard let data, !data.isEmpty else { return .none }
            let list = data.withUnsafeBytes { buffer -> CFPropertyList? in
                guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    let bytes = CFDataCreateWithBytesNoCopy(nil, base, buffer.count, kCFAllocatorNull)
                else { return nil }
                return CFPropertyListCreateWithData(nil, bytes, 0, nil, nil)?.takeRetainedValue()
            }
            guard let list, CFGetTypeID(list) == CFDictionaryGetTypeID() else { return .damaged(data) }
            return .dictionary(
                Unmanaged<CFDictionary>.fromOpaque(Unmanaged.passUnretained(list).toOpaque())
                    .takeUnretainedValue())
        }

        /// Writes `changes` into the domain's file at `location` as it is on disk now (the caller
        /// holds the exclusive lock), as an XML property list (what corelibs writes on Linux), to a
        /// new file renamed into place; a damaged file is first kept beside it, and its path
        /// returned. No key left: the file is removed, as corelibs does.
        static func write(_ changes: [(key: String, value: Any?)], at location: DomainLocation) throws(Failure)
            -> String?
        {
            let path = location.domainFilePath
            var stored: CFDictionary?
            var keptDamaged: String?
            switch try contents(at: path) {
            case .none: break
            case .dictionary(let dictionary): stored = dictionary
            case .damaged(let bytes):
                let backup = path + ".unreadable-\(Int64(Date().timeIntervalSince1970 * 1000))"
                try replace(backup, with: bytes, keeping: KeptAttributes(), in: location)
                keptDamaged = backup
            }
            let dictionary =
                stored.map { CFDictionaryCreateMutableCopy(nil, 0, $0) }
                ?? CFDictionaryCreateMutable(nil, 0, [kCFTypeDictionaryKeyCallBacks], [kCFTypeDictionaryValueCallBacks])
            guard let dictionary else { throw Failure(reason: "could not copy the domain of \(path)") }
            for (key, value) in changes {
                let name = cfString(key)
                if let value {
                    CFDictionarySetValue(
                        dictionary, unsafeBitCast(name, to: UnsafeRawPointer.self),
                        Unmanaged.passUnretained(value as AnyObject).toOpaque())
                } else {
                    CFDictionaryRemoveValue(dictionary, unsafeBitCast(name, to: UnsafeRawPointer.self))
                }
            }
            let attributes = try KeptAttributes(ofFileAt: path)
            if CFDictionaryGetCount(dictionary) == 0 {
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw Failure(reason: "could not remove \(path): \(String(cString: strerror(errno)))")
                }
                try flushDirectory(of: location, replaced: true)
                return keptDamaged
            }
            var error: Unmanaged<CFError>?
            guard
                let data = CFPropertyListCreateData(
                    nil, dictionary, .xmlFormat_v1_0, 0, &error)?.takeRetainedValue()
            else {
                error?.release()
                throw Failure(reason: "a value of the domain is not a property list; \(path) was left as it was")
            }
            let bytes = Data(bytes: CFDataGetBytePtr(data), count: CFDataGetLength(data))
            if InjectedFault.isInjected(.domainInPlace) { return try rewriteInPlace(path, with: bytes) }
            try replace(path, with: bytes, keeping: attributes, in: location)
            return keptDamaged
        }

        /// The power-loss self-test's deliberate bug: the file truncated and written again.
        private static func rewriteInPlace(_ path: String, with bytes: Data) throws(Failure) -> String? {
            guard let descriptor = try? GuardedFile.open(path, O_WRONLY | O_CREAT | O_TRUNC) else {
                throw Failure(reason: "could not open \(path)")
            }
            defer { close(descriptor) }
            guard writeWhole(bytes, to: descriptor) else { throw Failure(reason: "could not write \(path)") }
            return nil
        }

        /// Why the domain's file at `path` is not replaced: its owner made it read-only (readable,
        /// without owner write permission), which corelibs' own write in place would fail on; `nil`
        /// otherwise (a file its owner cannot read either is a store that cannot be read now).
        static func refusalOfReadOnlyFile(at path: String) -> String? {
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & (S_IRUSR | S_IWUSR) == S_IRUSR else { return nil }
            let mode = String(status.st_mode & 0o7777, radix: 8)
            return "\(path) is read-only (mode \(mode)): its owner made it so, and AppSettings does not replace it"
        }

        /// The new file a write of `target` is made in: `<directory>/.<name>.appsettings-new` (left
        /// by a writer killed before the rename; removed by the next writer or the suite's removal).
        static func temporaryPath(replacing target: String) -> String {
            let directory = (target as NSString).deletingLastPathComponent
            let name = (target as NSString).lastPathComponent
            return appendingPathComponent(".\(name).appsettings-new", to: directory)
        }

        /// Writes `bytes` to `<directory>/.<name>.appsettings-new` (made anew, never through a
        /// link) with `attributes`, flushes it, renames it over `target` and flushes the directory.
        private static func replace(
            _ target: String, with bytes: Data, keeping attributes: KeptAttributes, in location: DomainLocation
        ) throws(Failure) {
            let directory = (target as NSString).deletingLastPathComponent
            let temporary = temporaryPath(replacing: target)
            // A file left there by a writer killed before its rename: only writers holding the
            // domain's exclusive lock use this name.
            _ = unlink(temporary)
            let descriptor: Int32
            do {
                try GuardedFile.createDirectories(directory)
                descriptor = try GuardedFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: attributes.mode)
            } catch {
                throw Failure(reason: "could not create a new file for \(target): \(error)")
            }
            var failure: String?
            if !writeWhole(bytes, to: descriptor) {
                failure = "could not write \(target): \(String(cString: strerror(errno)))"
            } else {
                failure = attributes.apply(to: descriptor, replacing: target)
            }
            if failure == nil, fsync(descriptor) != 0 || rename(temporary, target) != 0 {
                failure = "could not write \(target): \(String(cString: strerror(errno)))"
            }
            close(descriptor)
            if let failure {
                unlink(temporary)
                throw Failure(reason: failure + "; it was left as it was")
            }
            try flushDirectory(of: location, replaced: true)
        }

        /// Flushes the configuration directory, so that the rename persists through a power loss.
        private static func flushDirectory(of location: DomainLocation, replaced: Bool) throws(Failure) {
            do throws(AppSettingsError) {
                try location.flushConfigurationDirectory()
            } catch {
                throw Failure(reason: "\(error)", replaced: replaced)
            }
        }

        private static func writeWhole(_ data: Data, to descriptor: Int32) -> Bool {
            data.withUnsafeBytes { buffer in
                GuardedFile.transferWhole(buffer.count) {
                    Glibc.write(descriptor, buffer.baseAddress! + $0, buffer.count - $0)
                }
            }
        }
    }

    /// What a domain file keeps when the library replaces it: its permissions, owner and group,
    /// and its `user.*` extended attributes (a new file renamed into place has none of them by
    /// itself; corelibs' write in place kept them all).
    struct KeptAttributes {
        var mode: mode_t = 0o600
        var owner: (user: uid_t, group: gid_t)?
        var extended: [(name: String, value: [UInt8])] = []

        /// A new file's: mode 0600, this process's owner and group.
        init() {}

        /// Those of the file at `path` (never through a link); a new file's when there is none.
        init(ofFileAt path: String) throws(DomainFile.Failure) {
            var status = stat()
            guard lstat(path, &status) == 0 else { return }
            (mode, owner) = (status.st_mode & 0o777, (status.st_uid, status.st_gid))
            guard let list = Self.listCall, let get = Self.getCall, list(path, nil, 0) != 0 else { return }
            var names = [CChar](repeating: 0, count: Self.maximumSize)
            var value = [UInt8](repeating: 0, count: Self.maximumSize)
            let count = list(path, &names, names.count)
            guard count >= 0 || errno == ENOTSUP else { throw Self.failure("read the extended attributes of \(path)") }
            for bytes in names[0..<max(count, 0)].split(separator: 0) {
                let name = String(decoding: bytes.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard name.hasPrefix("user.") else { continue }
                let length = get(path, name, &value, value.count)
                guard length >= 0 else { throw Self.failure("read the extended attribute \(name) of \(path)") }
                extended.append((name, Array(value[0..<length])))
            }
        }

        /// Gives the new file `descriptor` these attributes; why it could not, naming `target`.
        func apply(to descriptor: Int32, replacing target: String) -> String? {
            if let owner, fchown(descriptor, owner.user, owner.group) != 0 {
                return Self.failure("give the new \(target) its owner and group \(owner.user):\(owner.group)").reason
            }
            for (name, value) in extended where Self.setCall?(descriptor, name, value, value.count, 0) != 0 {
                return Self.failure("keep the extended attribute \(name) of \(target)").reason
            }
            // After `fchown`, which clears set-ID bits, and the umask the file was created under.
            return fchmod(descriptor, mode) == 0 ? nil : Self.failure("keep the permissions of \(target)").reason
        }

        private static func failure(_ what: String) -> DomainFile.Failure {
            DomainFile.Failure(reason: "could not \(what): \(String(cString: strerror(errno)))")
        }

        // glibc's calls of `<sys/xattr.h>`, which Swift's Glibc module does not import: public
        // functions of the C library, looked up once by name.
        private typealias List = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int
        private typealias Get =
            @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
        private typealias Set = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
        private static let listCall = function("llistxattr", as: List.self)
        private static let getCall = function("lgetxattr", as: Get.self)
        private static let setCall = function("fsetxattr", as: Set.self)
        /// The most a name list or a value may hold (the kernel's `XATTR_LIST_MAX`, `XATTR_SIZE_MAX`).
        private static let maximumSize = 65536

        private static func function<F>(_ name: String, as type: F.Type) -> F? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
        }
    }

    /// `data` as one `CFData`, its bytes copied at once.
    func cfData(_ data: Data) -> CFData {
        data.withUnsafeBytes { buffer in
            CFDataCreate(nil, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count)
        }
    }

    /// `value` as CoreFoundation's property-list objects (what `UserDefaults` hands out is
    /// Swift's: `String`, `[String: Any]`), made by a round trip through a binary property list;
    /// `nil` for what is not a property list (the write then fails, naming the file).
    func propertyListObject(_ value: Any) -> AnyObject? {
        if let data = value as? Data { return cfData(data) }
        guard let bytes = try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        else { return nil }
        return CFPropertyListCreateWithData(nil, cfData(bytes), 0, nil, nil)?.takeRetainedValue()
    }
#endif
