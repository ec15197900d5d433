import CStopSignals
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers SIGINT/SIGTERM to Swift code: the C handler writes the signal number to a pipe, and a
/// dedicated thread (never a cooperative-pool thread, which must not block) reads it and calls
/// `handler` with the number.
enum StopSignals {
    private final class Watch {
        let fd: Int32
        let handler: @Sendable (Int32) -> Void
        init(fd: Int32, handler: @escaping @Sendable (Int32) -> Void) {
            self.fd = fd
            self.handler = handler
        }
    }

    /// Starts watching; returns false if the handlers or the thread could not be set up.
    @discardableResult
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> Bool {
        let fd = avp_stop_signals_install()
        guard fd >= 0 else { return false }
        let context = Unmanaged.passRetained(Watch(fd: fd, handler: handler)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t? = nil
        #endif
        let started = pthread_create(&thread, nil, { raw in
            #if canImport(Glibc)
            let watch = Unmanaged<Watch>.fromOpaque(raw!).takeRetainedValue()
            #else
            let watch = Unmanaged<Watch>.fromOpaque(raw).takeRetainedValue()
            #endif
            avp_stop_signals_unblock()  // so the signal is delivered here, whatever mask we inherited
            var byte: UInt8 = 0
            while true {
                let count = read(watch.fd, &byte, 1)
                if count == 1 { watch.handler(Int32(byte)) } else if count < 0 && errno != EINTR { break }
            }
            return nil
        }, context)
        if started != 0 { Unmanaged<Watch>.fromOpaque(context).release() }
        return started == 0
    }
}
