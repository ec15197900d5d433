import AVPipeline
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
    /// Starts watching; returns false if the handlers or the thread could not be set up.
    @discardableResult
    static func watch(_ handler: @escaping @Sendable (Int32) -> Void) -> Bool {
        let fd = avp_stop_signals_install()
        guard fd >= 0 else { return false }
        return DetachedThread.start {
            avp_stop_signals_unblock()  // so the signal is delivered here, whatever mask we inherited
            var byte: UInt8 = 0
            while true {
                let count = read(fd, &byte, 1)
                if count == 1 { handler(Int32(byte)) } else if count < 0 && errno != EINTR { break }
            }
        }
    }
}
