import Foundation

// Per-thread switches: scratch copies that skip loading.

/// A switch of the current thread, set while a body runs.
final class ThreadFlag: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    var isSet: Bool { pthread_getspecific(key) != nil }

    func whileSet<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}

/// Lets a thread create settings objects that skip loading (scratch copies).
enum LoadSuppression {
    private static let flag = ThreadFlag()

    static var isActive: Bool { flag.isSet }

    static func withSuppressedLoading<T>(_ body: () -> T) -> T {
        flag.whileSet(body)
    }
}
