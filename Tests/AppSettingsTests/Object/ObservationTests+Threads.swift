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

    /// Issue 46: four threads assign for about a second while an observer registers again in each
    /// `onChange` (as SwiftUI and `values(of:)`-like helpers do). It is told while they run, at
    /// most once per assignment, and nothing once 300 ms have passed after they stopped: the
    /// changes made while another thread delivers are merged into one delivery, not queued, so no
    /// backlog outlives the writers. Its last look saw the final value.
    @Test func anObserverThatRegistersAgainIsToldNothing300MillisecondsAfterFourWritersStop() {
        let settings = AudioSettings(userDefaults: suite.userDefaults)
        let observer = RegisteringAgain(settings)
        observer.observe()
        defer { observer.stop() }
        let assignments = Protected(0)
        let stop = Date().addingTimeInterval(1)
        let writers = Threads(4) { index in
            var value = index
            while Date() < stop {
                value += 4
                settings.volume = value
            }
            assignments.withLock { $0 += value / 4 }
        }
        Thread.sleep(until: stop)
        let callsWhileWriting = observer.calls.withLock { $0 }
        Thread.sleep(until: stop.addingTimeInterval(0.3))
        let callsAt300Milliseconds = observer.calls.withLock { $0 }
        Thread.sleep(until: stop.addingTimeInterval(1.3))
        let callsAfter = observer.calls.withLock { $0 } - callsAt300Milliseconds
        #expect(callsAfter == 0, "told \(callsAfter) times in the second that began 300 ms after the writers stopped")
        #expect(writers.waitUntilFinished(seconds: 10), "a writer was still delivering 11 s after the writers stopped")
        let count = assignments.withLock { $0 }
        #expect(callsWhileWriting >= 1, "never told while \(count) assignments were made")
        #expect(observer.calls.withLock { $0 } <= count, "told more often than the \(count) assignments")
        #expect(observer.lastSeen.withLock { $0 } == settings.volume, "the observer's last look missed the final value")
    }
}

/// Registers again in each `onChange`, until stopped.
private final class RegisteringAgain: Sendable {
    let calls = Protected(0)
    /// The value read by the latest registration.
    let lastSeen = Protected(0)
    private let stopped = Protected(false)
    private let settings: AudioSettings

    init(_ settings: AudioSettings) { self.settings = settings }

    func observe() {
        guard !stopped.withLock({ $0 }) else { return }
        withObservationTracking {
            let volume = settings.volume
            lastSeen.withLock { $0 = volume }
        } onChange: { [self] in
            calls.withLock { $0 += 1 }
            observe()
        }
    }

    func stop() { stopped.withLock { $0 = true } }
}
