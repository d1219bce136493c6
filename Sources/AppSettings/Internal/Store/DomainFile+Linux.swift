// Linux: the domain's file, written by the library as CoreFoundation writes it, but never in
// place. corelibs' `CFPreferencesSynchronize` truncates the file and writes it again
// (`CFURLWriteDataAndPropertiesToResource`): a process killed in between leaves a file that has
// lost every key, the app's own and the library's backups included. Here the whole domain goes
// to a new file in the same directory, flushed, renamed over the old one, and the directory
// flushed: a kill or a power loss at any instant leaves the old file or the new one, whole.
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

        /// Writes `changes` into the domain's file at `location`: the file as it is on disk now
        /// (the caller holds the domain's exclusive lock) with the changes applied, as an XML property
        /// list (what corelibs writes on Linux: `__CFPreferencesShouldWriteXML()`), to a new file
        /// renamed into place. A damaged file is
        /// first kept beside it, as `<domain>.plist.unreadable-<ms>`: that path is returned.
        /// No key left: the file is removed, as corelibs does.
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
                try replace(backup, with: bytes, mode: 0o600, in: location)
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
            let mode = existingMode(of: path) ?? 0o600
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
            try replace(path, with: bytes, mode: mode, in: location)
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

        /// The permissions of the file at `path`, kept by the new one; `nil` when there is none.
        private static func existingMode(of path: String) -> mode_t? {
            var status = stat()
            guard lstat(path, &status) == 0 else { return nil }
            return status.st_mode & 0o777
        }

        /// The new file a write of `target` is made in before it is renamed over it:
        /// `<directory>/.<name>.appsettings-new`. A writer killed before the rename leaves it; the
        /// next writer, or the suite's removal, removes it.
        static func temporaryPath(replacing target: String) -> String {
            let directory = (target as NSString).deletingLastPathComponent
            let name = (target as NSString).lastPathComponent
            return appendingPathComponent(".\(name).appsettings-new", to: directory)
        }

        /// Writes `bytes` to `<directory>/.<name>.appsettings-new` (made anew, never through a
        /// link), flushes it, renames it over `target` and flushes the directory.
        private static func replace(
            _ target: String, with bytes: Data, mode: mode_t, in location: DomainLocation
        ) throws(Failure) {
            let directory = (target as NSString).deletingLastPathComponent
            let temporary = temporaryPath(replacing: target)
            // A file left there by a writer killed before its rename: only writers holding the
            // domain's exclusive lock use this name.
            _ = unlink(temporary)
            let descriptor: Int32
            do {
                try GuardedFile.createDirectories(directory)
                descriptor = try GuardedFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            } catch {
                throw Failure(reason: "could not create a new file for \(target): \(error)")
            }
            let flushed = writeWhole(bytes, to: descriptor) && fchmod(descriptor, mode) == 0 && fsync(descriptor) == 0
            var code = errno
            close(descriptor)
            let renamed = flushed && rename(temporary, target) == 0
            if flushed { code = errno }
            guard renamed else {
                unlink(temporary)
                throw Failure(
                    reason: "could not write \(target): \(String(cString: strerror(code))); it was left as it was")
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
            data.withUnsafeBytes { buffer -> Bool in
                var done = 0
                while done < buffer.count {
                    let result = Glibc.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                    if result < 0, errno == EINTR { continue }
                    guard result > 0 else { return false }
                    done += result
                }
                return true
            }
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
