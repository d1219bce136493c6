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
    /// The value lives behind a pointer: accesses through it skip the run-time exclusivity
    /// checks that a class's stored `var` costs on every access (the lock already excludes).
    @usableFromInline let pointer: UnsafeMutablePointer<Value>
    /// ThreadSanitizer's hooks, copied here so that locking reads no global.
    @usableFromInline let hooks = ThreadSanitizerHooks.current

    init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try mutex.withLock { _ throws(Failure) -> Result in
            hooks.acquire(self)
            defer { hooks.release(self) }
            return try body(&pointer.pointee)
        }
    }
}

/// ThreadSanitizer's annotation entry points, when the process has them (Linux only: elsewhere
/// `Mutex` is built on locks ThreadSanitizer already knows).
@usableFromInline
struct ThreadSanitizerHooks: @unchecked Sendable {
    @usableFromInline typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    @usableFromInline let acquireHook: Hook?
    @usableFromInline let releaseHook: Hook?

    /// Looked up once per process.
    static let current: ThreadSanitizerHooks = {
        #if os(Linux)
            ThreadSanitizerHooks(acquireHook: lookUp("__tsan_acquire"), releaseHook: lookUp("__tsan_release"))
        #else
            ThreadSanitizerHooks(acquireHook: nil, releaseHook: nil)
        #endif
    }()

    #if os(Linux)
        private static func lookUp(_ name: String) -> Hook? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Hook.self) }
        }
    #endif

    @inlinable
    func acquire(_ object: AnyObject) {
        if let acquireHook { acquireHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
    }

    @inlinable
    func release(_ object: AnyObject) {
        if let releaseHook { releaseHook(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())) }
    }
}
