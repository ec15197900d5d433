#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds a muxer's writes to the media's own clock (a file pushed as a live stream): a packet is
/// written no earlier than its time after the first packet's, less at most `burst`.
///
/// The wait blocks the muxer's thread instead of suspending the task: a paced stream has nothing
/// to do until then, and a suspending sleep per packet (a timer, two thread hops) made pushing a
/// copy cost twice ffmpeg's `-re` in CPU (its wait is a plain sleep too). It sleeps in slices of
/// at most 20 ms and looks for cancellation between them, so Ctrl-C is seen as promptly as ever.
///
/// Each wake-up sends every packet due within the next `burst`, not one: a wake-up costs more
/// than the packet it sends (the process comes back to cold caches), and 720p30 with AAC has 77
/// packets a second. A receiver buffers far more than 40 ms, so packets that early are still live.
struct RealTimePacer {
    private let clock = ContinuousClock()
    private var start: ContinuousClock.Instant
    private var first: MediaTime?
    /// Packets due before this are written at once: the current wake-up's burst.
    private var sendingUntil: ContinuousClock.Instant
    private let burst: Duration
    private static let slice = Duration.milliseconds(20)

    init(burst: Duration = .milliseconds(40)) {
        self.burst = burst
        start = clock.now
        sendingUntil = start
    }

    /// Starts the clock again at the next packet (after a reconnection: the time spent
    /// reconnecting is not made up by a burst).
    mutating func restart() {
        (start, first, sendingUntil) = (clock.now, nil, clock.now)
    }

    /// Returns once the packet at `time` is due (or due within the current wake-up's burst), or
    /// at once when `control` is stopped meanwhile; throws `.cancelled` when the task is cancelled.
    mutating func wait(until time: MediaTime, unless control: Muxer.Control? = nil) throws(AVPipelineError) {
        let origin = first ?? time
        first = origin
        let micro = Rational(1, 1_000_000)
        let due = start + .microseconds(time.converted(to: micro).value - origin.converted(to: micro).value)
        if due <= sendingUntil { return }
        while true {
            if Task.isCancelled { throw .cancelled }
            if control?.isStopped == true { return }
            let now = clock.now
            let left = due - now
            guard left > .zero else {
                sendingUntil = now + burst
                return
            }
            let nap = min(left, Self.slice)
            let (seconds, attoseconds) = nap.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
