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

/// Deliberately broken variants of the sync rules, for the random-schedule suite's mutation
/// self-test (`scripts/sync-mutation-test.sh`): the suite must catch each one.
///
/// Compiled in only with `-Xswiftc -DAPPSETTINGS_INJECTED_FAULTS`, like ``InjectedFault``; then
/// `APPSETTINGS_SYNC_MUTATION=<raw value>` chooses one for the process. Without the flag
/// ``isActive(_:)`` is the constant `false` and nothing is read.
package enum CloudSyncMutation: String, CaseIterable, Sendable {
    /// A value is sent only when the store holds nothing for it: a stale upload that won on the
    /// server is never corrected.
    case neverResend = "never-resend"
    /// A change's version is not raised past the versions seen: a later change can lose.
    case versionNotRaised = "version-not-raised"
    /// Another account is not noticed: the old account's values stay and are sent to it.
    case accountIgnored = "account-ignored"
    /// Any value the store holds that differs is taken, older or newer.
    case takesOlderValues = "takes-older-values"
    /// A refused value outranks the cloud's by its counter: the devices never agree again.
    case refusedOutranks = "refused-outranks"
    /// The library never checks the store again by itself.
    case noRechecks = "no-rechecks"
    /// A notice of the initial sync is answered at once, writes included.
    case writesInInitialSyncNotice = "writes-in-initial-sync-notice"
    /// After `stopSyncing()`, a save ignores the account the store is signed into: what it saves
    /// belongs to the set's account, and is dropped at the next `startSyncing` on the new one.
    case stoppedSavesIgnoreAccount = "stopped-saves-ignore-account"
    /// After `stopSyncing()`, a save on another account keeps the old account's versions: its
    /// values are sent to the new account.
    case oldVersionsKept = "old-versions-kept"

    /// Whether `mutation` is active in this process (always `false` without the build flag).
    @inline(__always)
    package static func isActive(_ mutation: CloudSyncMutation) -> Bool {
        #if APPSETTINGS_INJECTED_FAULTS
            return active == mutation
        #else
            return false
        #endif
    }

    /// The mutation this process runs with, or `nil` (always `nil` without the build flag).
    package static var current: CloudSyncMutation? {
        #if APPSETTINGS_INJECTED_FAULTS
            return active
        #else
            return nil
        #endif
    }

    #if APPSETTINGS_INJECTED_FAULTS
        private static let active = ProcessInfo.processInfo.environment["APPSETTINGS_SYNC_MUTATION"]
            .flatMap(CloudSyncMutation.init(rawValue:))
    #endif
}
