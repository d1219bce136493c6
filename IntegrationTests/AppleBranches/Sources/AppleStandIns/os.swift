// swift-format-ignore-file
// (Apple's names and declarations, as its SDK spells them.)
// Stand-ins of the `os` module's declarations the library uses, with the signatures of Apple's
// SDK: iPhoneOS18.0.sdk/usr/lib/swift/os.swiftmodule/arm64-apple-ios.swiftinterface (and the same
// in the iOS 17.0 interface, but for Logger's Sendable conformance, added in the iOS 18 SDK).
// Attributes that only steer Apple's compiler (@_alwaysEmitIntoClient, @_semantics, @_transparent)
// are left out. Implemented with a pthread mutex and standard error.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// MARK: OSAllocatedUnfairLock

@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
@frozen public struct OSAllocatedUnfairLock<State>: @unchecked Sendable {
    @usableFromInline final class Storage {
        @usableFromInline var mutex = pthread_mutex_t()
        @usableFromInline var state: State
        init(_ state: State) {
            self.state = state
            pthread_mutex_init(&mutex, nil)
        }
        deinit { pthread_mutex_destroy(&mutex) }
    }

    @usableFromInline let storage: Storage

    public init(uncheckedState initialState: State) { storage = Storage(initialState) }

    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(&storage.mutex)
        defer { pthread_mutex_unlock(&storage.mutex) }
        return try body(&storage.state)
    }

    public func withLock<R>(_ body: @Sendable (inout State) throws -> R) rethrows -> R where R: Sendable {
        try withLockUnchecked(body)
    }
}

@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
extension OSAllocatedUnfairLock where State == () {
    public init() { self.init(uncheckedState: ()) }

    @_unavailableFromAsync(message: "Use withLock for scoped locking")
    public func lock() { pthread_mutex_lock(&storage.mutex) }

    @_unavailableFromAsync(message: "Use withLock for scoped locking")
    public func unlock() { pthread_mutex_unlock(&storage.mutex) }

    @_unavailableFromAsync(message: "Use withLockIfAvailable for scoped locking")
    public func lockIfAvailable() -> Bool { pthread_mutex_trylock(&storage.mutex) == 0 }
}

@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
extension OSAllocatedUnfairLock where State: Sendable {
    public init(initialState: State) { self.init(uncheckedState: initialState) }
}

// MARK: Logger

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
public struct Logger: @unchecked Sendable {
    let subsystem: String
    let category: String

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
    }

    public func notice(_ message: OSLogMessage) { write("notice", message) }
    public func error(_ message: OSLogMessage) { write("error", message) }

    private func write(_ level: String, _ message: OSLogMessage) {
        let line = "[\(subsystem):\(category)] \(level): \(message.interpolation.text)\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public let interpolation: OSLogInterpolation
    public init(stringInterpolation: OSLogInterpolation) { interpolation = stringInterpolation }
    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: value.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }
    public typealias StringInterpolation = OSLogInterpolation
    public typealias StringLiteralType = String
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogInterpolation: StringInterpolationProtocol {
    var text = ""
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) { text += literal }

    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        text += argumentString()
    }
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogStringAlignment {
    public static var none: OSLogStringAlignment { OSLogStringAlignment() }
}

@available(macOS 11.0, iOS 14.0, watchOS 7.0, tvOS 14.0, *)
@frozen public struct OSLogPrivacy {
    let isPublic: Bool
    public static var `public`: OSLogPrivacy { OSLogPrivacy(isPublic: true) }
    public static var `private`: OSLogPrivacy { OSLogPrivacy(isPublic: false) }
    public static var auto: OSLogPrivacy { OSLogPrivacy(isPublic: false) }
}
