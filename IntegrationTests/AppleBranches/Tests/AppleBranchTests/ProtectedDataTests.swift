import AppSettingsTesting
import AppleStandIns
import Foundation
import Testing

@testable import AppSettings

// Issue 47: a set is never taken as empty, nor overwritten, when UserDefaults reads nothing because
// of data protection, whatever class the app's container gives its preferences and whatever the
// launch (AppleBehaviour.swift, rules 3 and 4). Each launch is followed by a pull and a save. In
// `AppleBranchTests` (serialized): the device's lock is the model's process state.

final class GuardedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var local = 0
    @Setting(syncs: true) var synced = "unset"
}

extension AppleBranchTests {
    /// A set stored in `suite`, and a cloud where another device changed its synced setting since.
    private func storedSetAndNewerCloud(in suite: Suite) throws -> (CloudKeyValueStoreSimulator, Suite) {
        let writer = GuardedSettings(store: .suite(suite.name))
        writer.local = 1
        writer.synced = "here"
        try writer.synchronizeToUserDefaults()
        let cloud = CloudKeyValueStoreSimulator()
        let otherSuite = Suite()
        let other = GuardedSettings(store: .suite(otherSuite.name))
        try other.startSyncing(with: cloud.makeDevice())
        other.synced = "there"
        try other.synchronizeToUserDefaults()
        cloud.deliverChanges()
        return (cloud, otherSuite)
    }

    /// A pull of the cloud's newer value (a change notice, then `refreshFromCloud()`) and a save of
    /// a change: neither may write while the set cannot be read.
    private func pullAndSave(_ settings: GuardedSettings, from cloud: CloudKeyValueStoreSimulator) {
        try? settings.startSyncing(with: cloud.makeDevice())
        cloud.deliverChanges()
        #expect(throws: AppSettingsError.self) { try settings.refreshFromCloud() }
        settings.local = 5
        #expect(throws: AppSettingsError.self) { try settings.synchronizeToUserDefaults() }
        settings.stopSyncing()
    }

    /// What `suite` holds, read by a new launch on an unlocked device.
    private func storedLocal(in suite: Suite) -> Int {
        AppleProcess.relaunch()
        ProtectedData.domainsReadWhileUnavailable.withLock { $0.removeAll() }
        return GuardedSettings(store: .suite(suite.name)).local
    }

    @Test func aSetUnderACompleteContainerSurvivesALockedLaunchAPullAndASave() throws {
        let suite = Suite()
        let (cloud, otherSuite) = try storedSetAndNewerCloud(in: suite)
        defer { withExtendedLifetime(otherSuite) { AppleProcess.restoreDevice() } }
        // Launched in the background while the device is locked after its first unlock.
        AppleProcess.lockDevice()
        let settings = GuardedSettings(store: .suite(suite.name))
        guard case .storeUnavailable? = settings.lastLoadError else {
            Issue.record("the load took the set for empty: \(String(describing: settings.lastLoadError))")
            return
        }
        pullAndSave(settings, from: cloud)
        AppleProcess.lockState = .unlocked
        #expect(storedLocal(in: suite) == 1, "the stored set was overwritten")
    }

    @Test func aSetSurvivesABackgroundLaunchBeforeTheFirstUnlockAPullAndASave() throws {
        let suite = Suite()
        let (cloud, otherSuite) = try storedSetAndNewerCloud(in: suite)
        defer { withExtendedLifetime(otherSuite) { AppleProcess.restoreDevice() } }
        // Launched in the background after a restart; the user unlocks the device later.
        AppleProcess.lockState = .beforeFirstUnlock
        let settings = GuardedSettings(store: .suite(suite.name))
        guard case .storeUnavailable(_, let reason)? = settings.lastLoadError else {
            Issue.record("the load took the set for empty: \(String(describing: settings.lastLoadError))")
            return
        }
        AppleProcess.unlock()
        // The domain still reads empty in this launch: a reload (the notice's, or this one) finds
        // the store unavailable still.
        #expect {
            try settings.resetToUserDefaults()
        } throws: { error in
            guard case .storeUnavailable? = error as? AppSettingsError else { return false }
            return true
        }
        #expect(settings.local == 0 && reason.contains("locked"))
        pullAndSave(settings, from: cloud)
        // The next launch reads the set as it was.
        #expect(storedLocal(in: suite) == 1, "the stored set was overwritten")
    }
}
