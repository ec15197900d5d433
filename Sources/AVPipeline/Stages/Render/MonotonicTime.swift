#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the system's monotonic clock: cheap, lock-free and allocation-free, so the audio
/// callback can stamp itself with it, and comparable across threads.
enum MonotonicTime {
    static func nanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }

    static func seconds() -> Double { Double(nanoseconds()) / 1e9 }
}
