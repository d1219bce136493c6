import Foundation

/// Deliberate bugs, for the power-loss test's mutation self-test (`scripts/power-loss-test.sh`):
/// the test must find each of them, which proves it can fail.
///
/// Compiled in only with `-Xswiftc -DAPPSETTINGS_INJECTED_FAULTS` (the self-test builds its test
/// host so, in a build directory of its own). Without that flag ``isInjected(_:)`` is the constant
/// `false`, ``delayRecoveryCopy()`` does nothing, and no environment variable is read: release and
/// debug builds behave as if this file did not exist. With the flag, the environment chooses:
/// - `APPSETTINGS_INJECTED_FAULT=<raw value>`: one fault below;
/// - `APPSETTINGS_RECOVERY_COPY_DELAY_MS=<n>`: the recovery copy's thread starts `n` ms late (a
///   schedule where the domain's calls come first).
enum InjectedFault: String {
    /// A new recovery copy file is renamed into place, but its directory is not flushed.
    case noDirectoryFlush = "no-directory-flush"
    /// A save writes the slot that holds the newest whole copy, not the other one.
    case newestSlot = "newest-slot"
    /// A slot written in place is not flushed with `fdatasync`.
    case noSlotFlush = "no-slot-flush"
    /// A slot's checksum is not checked when the copy is read.
    case noChecksum = "no-checksum"
    /// The domain's file is rewritten in place (truncated, then written), as corelibs does.
    case domainInPlace = "domain-in-place"

    /// Whether `fault` is injected in this process (always `false` without the build flag).
    @inline(__always)
    static func isInjected(_ fault: InjectedFault) -> Bool {
        #if APPSETTINGS_INJECTED_FAULTS
            return active == fault
        #else
            return false
        #endif
    }

    /// Delays the recovery copy's thread as the environment asks (nothing without the build flag).
    @inline(__always)
    static func delayRecoveryCopy() {
        #if APPSETTINGS_INJECTED_FAULTS
            if recoveryCopyDelay > 0 { usleep(recoveryCopyDelay * 1000) }
        #endif
    }

    #if APPSETTINGS_INJECTED_FAULTS
        private static let active = ProcessInfo.processInfo.environment["APPSETTINGS_INJECTED_FAULT"]
            .flatMap(InjectedFault.init(rawValue:))
        private static let recoveryCopyDelay =
            ProcessInfo.processInfo.environment[
                "APPSETTINGS_RECOVERY_COPY_DELAY_MS"
            ].flatMap(UInt32.init) ?? 0
    #endif
}
