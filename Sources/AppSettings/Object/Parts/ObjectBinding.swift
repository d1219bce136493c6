import Foundation

/// What an object is bound to, set once while it is initialized (`attachSlots`): its class's
/// layout, its key, its store, and the log capture of the task that made it (tests'
/// `AppSettingsLog.capture`, also for what is logged from the library's own threads).
struct ObjectBinding {
    var layout = SettingsLayout.empty
    var key = SettingsKey(postfix: "")
    var store = SettingsStore.placeholder
    let logCapture = LogCapture.current
}
