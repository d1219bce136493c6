import Foundation

/// What an object knows of the keys the system Settings app shows (`@Setting(inSettingsApp: true)`),
/// guarded by the object's `_state`: what it saw there since the last load or save, and what it
/// did not take.
struct SettingsAppState {
    /// Per stored name, what the key held when the object last looked (as found, before any
    /// conversion): a value seen is taken (or ignored) once, so an assignment made after it stays.
    /// Emptied by a save, after which the keys hold the values written.
    var seen: [String: StoredValue] = [:]
    /// The values not taken since the last load.
    var ignored: [IgnoredSettingsAppValue] = []
}
