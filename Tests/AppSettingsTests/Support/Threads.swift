import Foundation

@testable import AppSettings

/// Threads started together, the one way every test runs code on threads of its own: `count`
/// threads each run `body` with their index (0 to `count - 1`); the waits return once every one
/// has finished. The finishing is signalled through a condition (pthread's, which
/// ThreadSanitizer sees), so what the threads wrote is visible to the waiter afterwards.
final class Threads: @unchecked Sendable {
    private let condition = NSCondition()
    private var running: Int  // guarded by `condition`

    /// Starts `count` threads running `body`. The library's log lines they write go where the
    /// starting test's go (see `CapturedLibraryLog`).
    init(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        running = count
        let capture = LogCapture.current
        for index in 0..<count {
            Thread { [self] in
                LogCapture.$current.withValue(capture) { body(index) }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }.start()
        }
    }

    /// Runs `body` on `count` threads at once and returns when all have finished.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        Threads(count, body).waitUntilFinished()
    }

    /// Waits until every thread finished.
    func waitUntilFinished() {
        condition.lock()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Waits until every thread finished, for at most `seconds`; returns whether they all did.
    func waitUntilFinished(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while running > 0 {
            if !condition.wait(until: deadline) { return running == 0 }
        }
        return true
    }
}
