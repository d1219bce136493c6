import Foundation

/// One object per thread, made at its first use there and released when the thread ends: a POSIX key (the first
/// entry of `Thread.current.threadDictionary` bridges through casts that scan the process's conformance records).
struct ThreadLocalObject<Value: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        // The argument is optional in Glibc's declaration, not in Apple's: `as` makes it one type.
        pthread_key_create(&key) {
            if let object = $0 as UnsafeMutableRawPointer? { Unmanaged<AnyObject>.fromOpaque(object).release() }
        }
        (self.key, self.make) = (key, make)
    }

    var value: Value {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue() }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
