/// The one place where a capture device's pictures wait for the encoder: a queue of at most
/// `capacity` pictures between the device's reading thread and the pipeline's pull.
///
/// A device cannot wait, so when the encoder falls behind the *oldest* picture is dropped (the
/// newest is what a live recording wants) and counted; the queue never grows past its bound, and
/// each picture keeps the time it was captured, so a drop shows as a longer picture, never as
/// a shift between picture and sound.
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
    }

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        state = LockedState(State())
    }

    /// Device side: appends a picture, dropping the oldest waiting one when full.
    func put(_ entry: Entry) {
        state.withLock { state in
            guard !state.ended else { return }
            state.counts.captured += 1
            if state.entries.count >= capacity {
                state.entries.removeFirst()
                state.counts.dropped += 1
            }
            state.entries.append(entry)
        }
    }

    /// Device side: no more pictures (after `error`, if one stopped the device).
    func end(_ error: AVPipelineError? = nil) {
        state.withLock { state in
            guard !state.ended else { return }
            state.ended = true
            state.error = error
        }
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
