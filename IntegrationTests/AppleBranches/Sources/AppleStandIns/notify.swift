// swift-format-ignore-file
// (Apple's names and declarations, as its SDK spells them.)
// Stand-ins of notify(3) (notify.h, imported to Swift as Apple's documentation of the DarwinNotify
// framework declares: notify_register_dispatch(_:_:_:_:), notify_cancel(_:), notify_post(_:),
// notify_handler_t; NOTIFY_STATUS_OK is a macro, imported as Int32, while the functions return
// UInt32). The C block type `notify_handler_t` is `@convention(block)` on Apple platforms; Linux has
// no blocks, so here it is a plain Swift closure of the same shape.
//
// Implemented as the notification center does it within one process: a post reaches every
// registration of its name, each on the queue it was registered with, with its token. (Across
// processes the Linux build uses inotify; this stand-in does not reach other processes.)

import Dispatch
import Foundation

public typealias notify_handler_t = (Int32) -> Void
public typealias dispatch_queue_t = DispatchQueue

public var NOTIFY_STATUS_OK: Int32 { 0 }
public var NOTIFY_STATUS_INVALID_NAME: Int32 { 1 }
public var NOTIFY_STATUS_INVALID_TOKEN: Int32 { 2 }

public func notify_register_dispatch(
    _ name: UnsafePointer<CChar>!,
    _ out_token: UnsafeMutablePointer<Int32>!,
    _ queue: dispatch_queue_t!,
    _ handler: notify_handler_t!
) -> UInt32 {
    guard let name, let out_token, let queue, let handler else { return UInt32(NOTIFY_STATUS_INVALID_NAME) }
    let registration = NotifyCenter.Registration(name: String(cString: name), queue: queue, handler: handler)
    out_token.pointee = NotifyCenter.shared.add(registration)
    return UInt32(NOTIFY_STATUS_OK)
}

public func notify_cancel(_ token: Int32) -> UInt32 {
    NotifyCenter.shared.remove(token) ? UInt32(NOTIFY_STATUS_OK) : UInt32(NOTIFY_STATUS_INVALID_TOKEN)
}

public func notify_post(_ name: UnsafePointer<CChar>!) -> UInt32 {
    guard let name else { return UInt32(NOTIFY_STATUS_INVALID_NAME) }
    NotifyCenter.shared.post(String(cString: name))
    return UInt32(NOTIFY_STATUS_OK)
}

/// The process's notification center (stand-in), with what tests need to look at.
public final class NotifyCenter: @unchecked Sendable {
    public static let shared = NotifyCenter()

    struct Registration {
        let name: String
        let queue: DispatchQueue
        let handler: notify_handler_t
    }

    private let lock = NSLock()
    private var registrations: [Int32: Registration] = [:]
    private var nextToken: Int32 = 1
    private var postedNames: [String] = []

    func add(_ registration: Registration) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        let token = nextToken
        nextToken += 1
        registrations[token] = registration
        return token
    }

    func remove(_ token: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return registrations.removeValue(forKey: token) != nil
    }

    func post(_ name: String) {
        lock.lock()
        postedNames.append(name)
        let matching = registrations.filter { $0.value.name == name }
        lock.unlock()
        for (token, registration) in matching {
            let handler = registration.handler
            nonisolated(unsafe) let call = { handler(token) }
            registration.queue.async { call() }
        }
    }

    /// The names registered now, one entry per registration.
    public var registeredNames: [String] {
        lock.lock()
        defer { lock.unlock() }
        return registrations.values.map(\.name)
    }

    /// Every name posted so far, in order.
    public var posted: [String] {
        lock.lock()
        defer { lock.unlock() }
        return postedNames
    }
}
