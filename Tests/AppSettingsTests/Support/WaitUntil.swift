import Foundation

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`: for what another
/// process or thread does. Returns whether it held.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(10_000)
    }
    return true
}
