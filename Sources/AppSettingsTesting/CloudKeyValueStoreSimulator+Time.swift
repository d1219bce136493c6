import AppSettings
import Foundation

// Simulated time and the events around a store: the work a device's user schedules runs when the
// time reaches it; sign-ins, sign-outs and the app's return to the foreground are told at once.

extension CloudKeyValueStoreSimulator {
    /// Simulated seconds since the simulator was made (moved only by ``advanceTime(by:)``).
    public var now: Double { state.withLock { $0.now } }

    /// Whether work scheduled by a device's user waits for a later time.
    public var hasScheduledWork: Bool { state.withLock { !$0.scheduled.isEmpty } }

    /// Moves simulated time `seconds` on, running the work that comes due (in the order of its
    /// time, on this thread, with no lock held; work it schedules runs too when due by then).
    public func advanceTime(by seconds: Double) {
        let end = state.withLock { $0.now + max(0, seconds) }
        while let work = nextWork(dueBy: end) { work() }
        state.withLock { $0.now = max($0.now, end) }
    }

    /// Tells the library that the app of `device` returned to the foreground (UIKit's
    /// `willEnterForegroundNotification`; a Mac app has no foreground, and is told nothing).
    public func enterForeground(_ device: any CloudKeyValueStore) {
        guard let device = ownDevice(device) else { return }
        tell(.enteredForeground, to: device)
    }

    private func nextWork(dueBy end: Double) -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard
                let index = state.scheduled.indices.min(by: { lhs, rhs in
                    let (a, b) = (state.scheduled[lhs], state.scheduled[rhs])
                    return (a.time, a.order) < (b.time, b.order)
                }), state.scheduled[index].time <= end
            else { return nil }
            let work = state.scheduled.remove(at: index)
            state.now = max(state.now, work.time)
            return work.work
        }
    }

    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.scheduled.append(ScheduledWork(time: state.now + max(0, seconds), order: state.nextOrder, work: work))
            state.nextOrder += 1
        }
    }

    func identityChanged(on device: Device) {
        tell(.identityChanged, to: device)
    }

    private func tell(_ event: CloudEnvironmentEvent, to device: Device) {
        let observers = state.withLock { $0.devices[device.identifier]?.eventObservers.map(\.observer) ?? [] }
        for observer in observers { observer(event) }
    }
}

extension CloudKeyValueStoreSimulator.Device: CloudEnvironment {
    /// Runs `work` when the simulator's time reaches `seconds` from now.
    package func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        simulator.schedule(after: seconds, work)
    }

    /// Calls `observer` with this device's sign-ins, sign-outs and returns to the foreground.
    package func addEventObserver(
        _ observer: @escaping @Sendable (CloudEnvironmentEvent) -> Void
    ) -> any NSObjectProtocol {
        let token = CloudKeyValueStoreSimulator.ObserverToken()
        simulator.state.withLock { $0.devices[identifier]?.eventObservers.append((token, observer)) }
        return token
    }

    /// Stops the calls of the observer that `token` was returned for.
    package func removeEventObserver(_ token: any NSObjectProtocol) {
        simulator.state.withLock { state in
            state.devices[identifier]?.eventObservers.removeAll { $0.token === token }
        }
    }
}
