#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex; `withLock` is the only way to it.
///
/// Used instead of the standard library's `Mutex` for state that threads contend for: on Linux,
/// `Mutex` takes a contended lock inside the prebuilt Synchronization library (a priority-
/// inheriting futex the kernel hands over), which ThreadSanitizer cannot see, so every contended
/// hand-off showed up as a data race. ThreadSanitizer intercepts pthread mutexes.
///
/// The value lives behind a pointer rather than in a stored `var`: the lock already makes access
/// exclusive, and a class's `var` would add the runtime's exclusivity check to every `withLock`
/// (~80 instructions, on every packet of a copy job).
package final class LockedState<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if canImport(Glibc)
        // Spin briefly before sleeping, as Mutex does: the critical sections are a few dozen
        // instructions, and a contended hand-off that sleeps at once costs a context switch.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        let rc = pthread_mutex_init(mutex, &attributes)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
