import Foundation
import Observation
import Testing

@testable import AppSettings

// Issue 40: one change, one call, whatever the threads. Observation calls every registration it
// finds in `willSet` and cancels a `withObservationTracking` registration only after its
// `onChange` returned, so two threads announcing at once both found it: the library delivers one
// object's announcements one thread at a time.
extension ObservationTests {
    /// Four threads that each wait for the others, then assign: one call per registration.
    @Test func aRegistrationIsToldOnceOfChangesOnFourThreads() {
        let settings = AudioSettings(userDefaults: suite.userDefaults)
        var toldMoreThanOnce: [Int: Int] = [:]
        for round in 1...300 {
            let calls = Protected(0)
            withObservationTracking {
                _ = settings.volume
            } onChange: {
                calls.withLock { $0 += 1 }
            }
            let ready = Protected(0)
            Threads.run(4) { index in
                ready.withLock { $0 += 1 }
                while ready.withLock({ $0 }) < 4 {}
                settings.volume = round * 10 + index
            }
            let count = calls.withLock { $0 }
            if count != 1 { toldMoreThanOnce[round] = count }
        }
        #expect(toldMoreThanOnce.isEmpty, "rounds told other than once (round: calls): \(toldMoreThanOnce)")
    }

    /// An observer that registers again in its `onChange` (as SwiftUI and `values(of:)`-like
    /// helpers do) is told at most once per assignment, and nothing more once the writers stop.
    @Test func anObserverThatRegistersAgainInOnChangeSettles() {
        let settings = AudioSettings(userDefaults: suite.userDefaults)
        let observer = RegisteringAgain(settings)
        observer.observe()
        let assignments = 500
        let writers = Threads(4) { index in
            for value in 1...assignments { settings.volume = index * 10_000 + value }
        }
        #expect(writers.waitUntilFinished(seconds: 60), "the writers did not finish within 60 s")
        let calls = observer.calls.withLock { $0 }
        #expect(calls >= 1 && calls <= 4 * assignments, "\(calls) calls for \(4 * assignments) assignments")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(observer.calls.withLock { $0 } == calls, "the observer was still being told after the writers stopped")
        observer.stop()
    }
}

/// Registers again in each `onChange`, until stopped.
private final class RegisteringAgain: Sendable {
    let calls = Protected(0)
    private let stopped = Protected(false)
    private let settings: AudioSettings

    init(_ settings: AudioSettings) { self.settings = settings }

    func observe() {
        guard !stopped.withLock({ $0 }) else { return }
        withObservationTracking {
            _ = settings.volume
        } onChange: { [self] in
            calls.withLock { $0 += 1 }
            observe()
        }
    }

    func stop() { stopped.withLock { $0 = true } }
}
