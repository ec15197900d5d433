/// The one place where a capture device's pictures wait for the encoder: a queue of at most
/// `capacity` pictures between the device's reading thread and the pipeline's pull.
///
/// A device cannot wait, so when the encoder falls behind the *oldest* picture is dropped (the
/// newest is what a live recording wants) and counted; the queue never grows past its bound, and
/// each picture keeps the time it was captured, so a drop shows as a longer picture, never as
/// a shift between picture and sound.
///
/// A consumer waiting for a picture is woken by the device's thread as soon as one arrives: a
/// picture converted while the grab is still in the processor's cache costs a fraction of one
/// that waited (polling every 11 ms made the capture's colour conversion cost 4× ffmpeg's).
/// Continuations are resumed after the lock is released, and pictures only pass through the lock.
final class PictureQueue: Sendable {
    /// A picture as the device delivered it (still coded: a raw or MJPEG packet), stamped on
    /// the monotonic clock when it arrived.
    struct Entry: @unchecked Sendable {
        // @unchecked: an entry is owned by the queue, then by the one consumer that took it.
        let packet: Packet
        let capturedAt: Int
    }

    /// What a `take` found.
    enum Taken {
        case picture(Entry)
        /// Nothing waits yet; the device goes on.
        case empty
        /// The device stopped (with the error that stopped it, if any) and everything was taken.
        case ended(AVPipelineError?)
    }

    struct Counts: Sendable, Equatable {
        /// Pictures the device delivered.
        var captured = 0
        /// Pictures dropped because the queue was full.
        var dropped = 0
    }

    let capacity: Int
    private let state: LockedState<State>

    private struct State: @unchecked Sendable {
        // @unchecked: only touched under the lock.
        // A few dozen entries at most: removing the first is cheaper than a ring's bookkeeping.
        var entries: [Entry] = []
        var counts = Counts()
        var ended = false
        var error: AVPipelineError?
        var waiter: CheckedContinuation<Void, Never>?
        /// When the waiter began waiting (monotonic nanoseconds), for the watchdog.
        var waitingSince: Int?

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { (waiter, waitingSince) = (nil, nil) }
            return waiter
        }
    }

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        state = LockedState(State())
    }

    /// Device side: appends a picture, dropping the oldest waiting one when full.
    func put(_ entry: Entry) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.ended else { return nil }
            state.counts.captured += 1
            if state.entries.count >= capacity {
                state.entries.removeFirst()
                state.counts.dropped += 1
            }
            state.entries.append(entry)
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// Device side: no more pictures (after `error`, if one stopped the device).
    func end(_ error: AVPipelineError? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.error = error
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// Consumer side: returns once a picture waits or the device ended (at once if so already),
    /// or when `wake` is called. One consumer at a time.
    func waitForPicture() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.entries.isEmpty || state.ended { return true }
                (state.waiter, state.waitingSince) = (continuation, MonotonicTime.nanoseconds())
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Wakes a waiting consumer: its task was cancelled, or it has waited longer than `seconds`
    /// (nil: whatever it waited).
    func wake(ifWaitingLongerThan seconds: Double? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let since = state.waitingSince else { return nil }
            if let seconds, Double(MonotonicTime.nanoseconds() - since) < seconds * 1e9 { return nil }
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// Consumer side: the oldest waiting picture.
    func take() -> Taken {
        state.withLock { state in
            if !state.entries.isEmpty { return .picture(state.entries.removeFirst()) }
            return state.ended ? .ended(state.error) : .empty
        }
    }

    var counts: Counts { state.withLock { $0.counts } }

    /// Pictures waiting now (for tests: never above `capacity`).
    var waiting: Int { state.withLock { $0.entries.count } }
}
