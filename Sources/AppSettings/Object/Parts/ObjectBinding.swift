import Foundation

/// What an object is bound to, set once while it is initialized (`attachSlots`): its class's
/// layout, its key with every name made from it, the store that reads and writes that key, and the
/// log capture of the task that made it (tests' `AppSettingsLog.capture`: what the library logs
/// for the object from its own threads, a watcher's refresh, goes there too).
struct ObjectBinding {
    var layout = SettingsLayout.empty
    var key = SettingsKey(postfix: "")
    var store = SettingsStore.placeholder
    let logCapture = LogCapture.current
}
