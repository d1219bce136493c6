#if os(Linux) && !APPLE_STAND_INS
    import CoreFoundation
    import Foundation
    import Glibc

    /// Writes a recovery copy on another thread, started at once.
    final class RecoveryCopyWrite: Sendable {
        /// A queue of its own: unlike the global queues, it gets a thread even when every worker
        /// thread is busy, for instance in saves waiting for their copies.
        private static let queue = DispatchQueue(label: "AppSettings.recovery-copy", attributes: .concurrent)
        private let done = DispatchSemaphore(value: 0)
        private let result = Protected<Result<Undo, AppSettingsError>?>(nil)
        private let location: DomainLocation
        private let key: String

        /// How to take a written copy back.
        enum Undo {
            /// Make the slot at `offset` unreadable (its magic zeroed): the other slot, with the
            /// copy before, is the newest whole one again.
            case slot(offset: Int)
            /// The file was made anew: put back the one before (`nil`: there was none).
            case file(previous: Data?)
        }

        init(location: DomainLocation, key: String, data: Data) {
            self.location = location
            self.key = key
            Self.queue.async { [self] in
                InjectedFault.delayRecoveryCopy()
                let outcome: Result<Undo, AppSettingsError>
                do throws(AppSettingsError) {
                    outcome = .success(try write(data))
                } catch {
                    outcome = .failure(error)
                }
                result.withLock { $0 = outcome }
                done.signal()
            }
        }

        /// Waits until the copy is written: how to take it back, or what writing it threw.
        func wait() -> Result<Undo, AppSettingsError> {
            done.wait()
            return result.withLock { $0! }
        }

        /// Takes a written copy back.
        func undo(_ undo: Undo) throws(AppSettingsError) {
            let target = location.recoveryCopyPath(forKey: key)
            switch undo {
            case .slot(let offset):
                let descriptor = try open(target)
                defer { close(descriptor) }
                guard writeWhole(Data(count: RecoveryCopyFormat.magic.count), to: descriptor, at: offset),
                    fdatasync(descriptor) == 0
                else { throw systemError(key: key, "could not write \(target)") }
            case .file(let previous?):
                try replace(target, with: previous)
            case .file(nil):
                guard unlink(target) == 0 else { throw systemError(key: key, "could not remove \(target)") }
                try location.flushStoreDirectory(key: key)
            }
        }

        private func open(_ target: String) throws(AppSettingsError) -> Int32 {
            guard let descriptor = try openIfPresent(target) else {
                throw .storeFailed(key: key, reason: "\(target) is gone")
            }
            return descriptor
        }

        /// The copy opened for writing, never through a link; `nil` when there is none.
        private func openIfPresent(_ target: String) throws(AppSettingsError) -> Int32? {
            do {
                return try GuardedFile.open(target, O_RDWR)
            } catch  where error.isMissing {
                return nil
            } catch {
                throw .storeFailed(key: key, reason: "could not open the recovery copy: \(error)")
            }
        }

        /// In place when the file has two slots with room (see ``RecoveryCopyFormat``): the slot
        /// without the newest whole copy, then `fdatasync`. Otherwise a new file: temporary file,
        /// `fdatasync`, `rename`, then its directory flushed, so that after a power loss it is
        /// still this file.
        private func write(_ archive: Data) throws(AppSettingsError) -> Undo {
            let target = location.recoveryCopyPath(forKey: key)
            var existing: Data?
            if let descriptor = try openIfPresent(target) {
                existing = Self.readWhole(descriptor)
                if case .inPlace(let offset, let bytes) = RecoveryCopyFormat.write(archive, over: existing) {
                    let written =
                        writeWhole(bytes, to: descriptor, at: offset)
                        && (InjectedFault.isInjected(.noSlotFlush) || fdatasync(descriptor) == 0)
                    let error = written ? nil : systemError(key: key, "could not write \(target)")
                    close(descriptor)
                    if let error { throw error }
                    return .slot(offset: offset)
                }
                close(descriptor)
            }
            guard case .replace(let file) = RecoveryCopyFormat.write(archive, over: existing) else {
                preconditionFailure("a copy that is not there is written as a new file")
            }
            try replace(target, with: file)
            return .file(previous: existing)
        }

        /// Writes `file` to a new temporary file under a name nobody can foresee (`O_EXCL`, never
        /// through a link), flushes it, renames it over `target` and flushes the directory.
        private func replace(_ target: String, with file: Data) throws(AppSettingsError) {
            let random = String(UInt64.random(in: .min ... .max), radix: 36)
            let temporary = appendingPathComponent(
                ".\(location.keyFileName(key)).\(random).tmp", to: location.storeDirectoryPath)
            let descriptor: Int32
            do {
                descriptor = try GuardedFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL)
            } catch {
                throw .storeFailed(key: key, reason: "could not create a temporary file: \(error)")
            }
            let complete = writeWhole(file, to: descriptor, at: 0)
            let synced = fdatasync(descriptor) == 0
            close(descriptor)
            guard complete, synced, rename(temporary, target) == 0 else {
                let error = systemError(key: key, "could not write \(target)")
                unlink(temporary)
                throw error
            }
            if !InjectedFault.isInjected(.noDirectoryFlush) { try location.flushStoreDirectory(key: key) }
        }

        /// The file's bytes, or `nil` when they cannot be read or are more than a copy may have
        /// (the file is then made anew).
        private static func readWhole(_ descriptor: Int32) -> Data? {
            let size = lseek(descriptor, 0, SEEK_END)
            guard size >= 0, size <= RecoveryCopyFormat.maximumFileByteCount else { return nil }
            var data = Data(count: Int(size))
            let complete = data.withUnsafeMutableBytes { buffer in
                GuardedFile.transferWhole(buffer.count) {
                    pread(descriptor, buffer.baseAddress! + $0, buffer.count - $0, off_t($0))
                }
            }
            return complete ? data : nil
        }

        private func writeWhole(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool {
            data.withUnsafeBytes { buffer in
                GuardedFile.transferWhole(buffer.count) {
                    pwrite(descriptor, buffer.baseAddress! + $0, buffer.count - $0, off_t(offset + $0))
                }
            }
        }
    }
#endif
