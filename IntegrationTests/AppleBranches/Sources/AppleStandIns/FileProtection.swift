// The model of data protection for files (AppleBehaviour.swift, rule 3, as files see it).
//
// documentation/foundation/fileprotectiontype/completeuntilfirstuserauthentication: "The file is
// stored in an encrypted format on disk and cannot be accessed until after the device has booted.
// After the user unlocks the device for the first time, your app can access the file and continue
// to access it even if the user subsequently locks the device."
// documentation/foundation/nsdata/writingoptions/completefileprotectionuntilfirstuserauthentication:
// "while it's booting up, the file has the protection equivalent to completeFileProtection", and
// documentation/foundation/fileprotectiontype/complete: "cannot be read from or written to while the
// device is locked or booting".
//
// Linux has no data protection, and a root process opens any file, so the library's stand-in build
// opens and creates its protected files through these two functions (Apple builds call `open(2)`
// and `FileManager.createFile(atPath:contents:attributes:)`): while the device's lock keeps a
// class closed (`AppleProcess.lockState`, `canOpen(_:)`), a file created with it cannot be opened,
// and none can be created with it (`EPERM`, what a device's `open(2)` returns then).

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Files under data protection, as a device keeps them (the rules above).
public enum AppleFileProtection {
    /// The app's Application Support directory (`FileManager.urls(for: .applicationSupportDirectory,
    /// in: .userDomainMask)`, in its container): a scratch directory of the process here.
    public static let applicationSupportDirectory: URL? = FileManager.default.temporaryDirectory
        .appendingPathComponent("AppleStandIns-\(getpid())-home/Library/Application Support", isDirectory: true)
    /// The files created with a protection class, by path.
    private static let protected = Mutex<[String: FileProtectionType]>([:])
    /// Called after each open, with its path and result (a test makes protected data available
    /// there, between the library's check and what it does next).
    nonisolated(unsafe) public static var afterOpen: (@Sendable (String, Int32) -> Void)?

    /// `open(path, flags)`, as on a device under data protection.
    public static func open(_ path: String, _ flags: Int32) -> Int32 {
        let result: Int32
        if let protection = protected.withLock({ $0[path] }),
            !AppleProcess.lock.withLock({ AppleProcess.canOpen(protection) })
        {
            errno = EPERM
            result = -1
        } else {
            result = Glibc.open(path, flags)
        }
        let saved = errno
        afterOpen?(path, result)
        errno = saved
        return result
    }

    /// `FileManager.default.createFile(atPath:contents:attributes:)` with
    /// `[.protectionKey: protection]`: `false` while the class is closed.
    public static func createProtectedFile(atPath path: String, contents: Data, protection: FileProtectionType) -> Bool
    {
        guard AppleProcess.lock.withLock({ AppleProcess.canOpen(protection) }) else { return false }
        guard FileManager.default.createFile(atPath: path, contents: contents) else { return false }
        protected.withLock { $0[path] = protection }
        return true
    }
}
