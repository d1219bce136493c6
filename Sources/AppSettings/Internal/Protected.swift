import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Mutable state behind a `Mutex`, whose locking ThreadSanitizer can see on every platform.
///
/// On Linux, `Mutex` locks with atomics and futex calls inside the Synchronization module, which
/// is not built with ThreadSanitizer instrumentation, so ThreadSanitizer reports every access made
/// under the lock as a race. When the process runs under ThreadSanitizer, `withLock` therefore
/// announces the acquire and the release itself (`__tsan_acquire` and `__tsan_release`, looked up
/// once at run time; in a normal build they are absent and cost one check of a `nil` pointer).
@usableFromInline
final class Protected<Value>: @unchecked Sendable {
    @usableFromInline let mutex = Mutex(())
    @usableFromInline var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try mutex.withLock { _ throws(Failure) -> Result in
            ThreadSanitizerHooks.acquire(self)
            defer { ThreadSanitizerHooks.release(self) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's annotation entry points, when the process has them (Linux only: elsewhere
/// `Mutex` is built on locks ThreadSanitizer already knows).
@usableFromInline
enum ThreadSanitizerHooks {
    @usableFromInline typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    #if os(Linux)
        @usableFromInline static let acquireHook: Hook? = lookUp("__tsan_acquire")
        @usableFromInline static let releaseHook: Hook? = lookUp("__tsan_release")

        private static func lookUp(_ name: String) -> Hook? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Hook.self) }
        }
    #endif

    @inlinable
    static func acquire(_ object: AnyObject) {
        #if os(Linux)
            if let acquireHook { acquireHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
        #endif
    }

    @inlinable
    static func release(_ object: AnyObject) {
        #if os(Linux)
            if let releaseHook { releaseHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
        #endif
    }
}
