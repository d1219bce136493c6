import Foundation

/// The library's calls made on a thread that holds one of its locks. Apple's `UserDefaults` posts
/// `didChangeNotification` "on the same thread you used to make the change", inside
/// `set(_:forKey:)`, so an app observer registered with `queue: nil` runs while a save holds
/// non-recursive locks. A save, revert, removal or pull it asks for is made once the thread's
/// outermost call released every lock, on the same thread, before that call returns (an error
/// is logged). Reads and assignments take no such lock and run at once.
enum HeldLocks {
    private final class ThreadState {
        /// Library locks this thread holds now.
        var held = 0
        /// Nested calls of `call` running on this thread.
        var depth = 0
        var waiting: [() -> Void] = []
    }

    private static let current = ThreadLocalObject { ThreadState() }

    /// Runs `body` while holding a library lock that `body` takes.
    static func holding<T>(_ body: () throws -> T) rethrows -> T {
        let state = current.value
        state.held += 1
        defer { state.held -= 1 }
        return try body()
    }

    /// Whether this thread holds a library lock now: a notice posted here is the library's own write's.
    static var isHeld: Bool { current.value.held > 0 }

    /// Runs a call that takes the library's locks now, or, on a thread holding one, once its
    /// outermost call released them (`what` names it in the log if it then fails).
    static func call(_ what: String, _ body: @escaping () throws -> Void) throws {
        let state = current.value
        guard state.held == 0 else {
            state.waiting.append {
                do { try body() } catch { Log.error("\(what), made after the write it was asked for inside: \(error)") }
            }
            return
        }
        state.depth += 1
        defer {
            state.depth -= 1
            while state.depth == 0, !state.waiting.isEmpty { state.waiting.removeFirst()() }
        }
        try body()
    }
}
