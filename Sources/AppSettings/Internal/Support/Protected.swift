#if canImport(Darwin) || APPLE_STAND_INS
    #if canImport(Darwin)
        import os
    #else
        import AppleStandIns
    #endif
#else
    import Synchronization
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif
#endif

/// Mutable state behind a lock whose locking ThreadSanitizer can see on every platform: on Linux,
/// `Mutex` locks inside the uninstrumented Synchronization module, so under ThreadSanitizer
/// `withLock` announces the acquire and release itself (`__tsan_acquire`, `__tsan_release`,
/// looked up once; absent in a normal build).
@usableFromInline
package final class Protected<Value>: @unchecked Sendable {
    #if canImport(Darwin) || APPLE_STAND_INS
        @usableFromInline let lock = OSAllocatedUnfairLock()
    #else
        @usableFromInline let mutex = Mutex(())
        /// ThreadSanitizer's hooks, copied here so that locking reads no global.
        @usableFromInline let hooks = ThreadSanitizerHooks.current
    #endif
    /// The value lives behind a pointer: accesses through it skip the run-time exclusivity
    /// checks that a class's stored `var` costs on every access (the lock already excludes).
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        #if canImport(Darwin) || APPLE_STAND_INS
            lock.lock()
            defer { lock.unlock() }
            return try body(&pointer.pointee)
        #else
            try mutex.withLock { _ throws(Failure) -> Result in
                hooks.acquire(self)
                defer { hooks.release(self) }
                return try body(&pointer.pointee)
            }
        #endif
    }
}

#if !(canImport(Darwin) || APPLE_STAND_INS)
    /// ThreadSanitizer's annotation entry points, when the process has them.
    @usableFromInline
    struct ThreadSanitizerHooks: @unchecked Sendable {
        @usableFromInline typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

        @usableFromInline let acquireHook: Hook?
        @usableFromInline let releaseHook: Hook?

        /// Looked up once per process.
        static let current = ThreadSanitizerHooks(
            acquireHook: lookUp("__tsan_acquire"),
            releaseHook: lookUp("__tsan_release")
        )

        private static func lookUp(_ name: String) -> Hook? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Hook.self) }
        }

        @inlinable
        func acquire(_ object: AnyObject) {
            if let acquireHook { acquireHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
        }

        @inlinable
        func release(_ object: AnyObject) {
            if let releaseHook { releaseHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
        }
    }
#endif
