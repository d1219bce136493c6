import Foundation

@testable import AppSettings

/// The tests' lock: the library's `Protected`, whose locking ThreadSanitizer sees on Linux.
/// Synchronization's `Mutex` locks in code that is not built for ThreadSanitizer there, so it
/// reports the accesses made under it as races; this name shadows it in every test file.
typealias Mutex<Value> = Protected<Value>

/// Whether this test process runs under ThreadSanitizer (its runtime is linked in; looked up on
/// Linux, where `.ci/run` runs the tests under it).
#if canImport(Glibc)
    let isThreadSanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
#else
    let isThreadSanitized = false
#endif
