import Foundation

/// What a settings object reports through ``AppSettingsObject/changes``.
public enum AppSettingsChange: Sendable, Equatable {
    /// These settings of this object changed value (by stored name, in declaration order).
    case settingsChanged([String])
    /// Another instance bound to the same `UserDefaults` and key wrote or removed the stored set,
    /// or another process wrote it. This object keeps its values; call
    /// ``AppSettingsObject/resetToUserDefaults()`` to load it, or set
    /// ``AppSettingsObject/reloadsWhenStoredSettingsChange``.
    case storedSettingsChanged
    /// ``AppSettingsObject/synchronizeToUserDefaults()`` found these settings (by stored name)
    /// changed both by this object and by another writer since this object's last load or save,
    /// to different values, and wrote this object's values: the later synchronization wins.
    /// Settings only the other writer changed were adopted and reported as ``settingsChanged(_:)``.
    case mergeConflicts([String])
    /// Synced settings (by stored name) changed on this device and on another device from the
    /// same version, neither seeing the other's change: the other device's value had the greater
    /// version and was taken here, so every device ends with the same values (see
    /// ``AppSettingsObject/startSyncing(with:)``).
    case syncConflicts([String])
    /// A synced value was not sent to the cloud, or not taken from it: the cloud refuses it
    /// (``AppSettingsError/cloudValueRefused(key:setting:reason:)``; the value is still stored on
    /// this device) or it does not fit its setting
    /// (``AppSettingsError/cloudValueUnreadable(key:setting:reason:)``; the setting keeps its value).
    /// The other synced settings sync as usual.
    case syncFailed(AppSettingsError)
}
