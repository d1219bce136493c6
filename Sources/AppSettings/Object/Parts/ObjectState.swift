import Foundation

/// Mutable state shared by all settings of one object, guarded by its lock (`_state`).
@usableFromInline
struct ObjectState {
    /// Which settings changed since the last load or save.
    @usableFromInline var changes = ChangeTracking()
    /// What the store held after the last load or save (the base of a merge), in one value.
    var stored = StoredBase()
    var lastLoadError: AppSettingsError?
    var reloadsWhenStoredSettingsChange = false
    var parent: WeakSettingsObject?
    /// Who hears of changes, and those a running transaction holds back.
    var announcements = Announcements()
    /// The cloud store this object syncs with, while it does.
    var cloud = CloudLink()
    /// What a live object that is not nested found of overrides (launch arguments, the
    /// environment, managed configuration); `nil` for scratch copies and nested objects.
    var overrides: OverrideState?
    /// What the object saw under the keys the system Settings app shows (`+SettingsApp`).
    var settingsApp = SettingsAppState()
}
