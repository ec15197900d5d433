#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own for work that blocks outside Swift's cooperative pool: a window's event
/// loop, a capture device's reads (which sleep until the device's next picture), the CLI's signal
/// watch (which sleeps in `read`). The one place the package makes a thread.
package enum DetachedThread {
    /// Runs `body` on a new detached thread; false (and `body` never runs) if none could be made.
    @discardableResult
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t? = nil
        #endif
        let rc = pthread_create(&thread, nil, { context in
            #if canImport(Glibc)
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            #else
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        pthread_detach(thread!)
        #endif
        return true
    }

    /// Runs `body` on a new detached thread; a process that cannot make one stops here.
    package static func spawn(_ body: @escaping @Sendable () -> Void) {
        precondition(start(body), "pthread_create failed")
    }
}
