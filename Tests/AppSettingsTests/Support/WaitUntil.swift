import Foundation

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`: for what another
/// process or thread does. Returns whether it held. The bound is generous because the wait ends
/// as soon as `condition` holds, and CI's two cores run the tests in parallel with other steps'
/// leftovers: a short bound makes a slow moment a failure.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(10_000)
    }
    return true
}
