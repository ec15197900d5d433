#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds a muxer's writes to the media's own clock (a file pushed as a live stream): a packet is
/// written no earlier than its time after the first packet's.
///
/// The wait blocks the muxer's thread instead of suspending the task: a paced stream has nothing
/// to do until then, and a suspending sleep per packet (a timer, two thread hops) made pushing a
/// copy cost twice ffmpeg's `-re` in CPU (its wait is a plain sleep too). It sleeps in slices of
/// at most 20 ms and looks for cancellation between them, so Ctrl-C is seen as promptly as ever.
struct RealTimePacer {
    private let clock = ContinuousClock()
    private var start: ContinuousClock.Instant
    private var first: MediaTime?
    private static let slice = Duration.milliseconds(20)

    init() { start = clock.now }

    /// Starts the clock again at the next packet (after a reconnection: the time spent
    /// reconnecting is not made up by a burst).
    mutating func restart() {
        (start, first) = (clock.now, nil)
    }

    /// Returns once the packet at `time` is due; throws `.cancelled` when the task is cancelled meanwhile.
    mutating func wait(until time: MediaTime) throws(AVPipelineError) {
        let origin = first ?? time
        first = origin
        let micro = Rational(1, 1_000_000)
        let due = start + .microseconds(time.converted(to: micro).value - origin.converted(to: micro).value)
        while true {
            if Task.isCancelled { throw .cancelled }
            let left = due - clock.now
            guard left > .zero else { return }
            let nap = min(left, Self.slice)
            let (seconds, attoseconds) = nap.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
