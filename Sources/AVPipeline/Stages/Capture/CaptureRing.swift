/// The one place where a live device's push meets the pipeline's pull: a bounded ring of
/// interleaved PCM that the device callback writes and `DeviceCapture` reads.
///
/// The device cannot wait, so when the reader falls behind the *oldest* audio is dropped (the
/// newest is what a live recording wants) and the loss is recorded with its position. Positions
/// are absolute sample-frame counts since the device started, so a drop shows downstream as a jump
/// in presentation time, never as audio silently glued together.
///
/// Unlike the renderer's lock-free `PCMRingBuffer`, the writer here must move the reader's position
/// (to drop), so both sides take one short lock; a copy of one callback's audio (a few KiB) is all
/// that happens inside it.
public final class CaptureRing: Sendable {
    /// One stretch of audio lost because the reader was too slow.
    struct Overrun: Sendable, Equatable {
        /// Where the lost audio began, in sample frames since the device started.
        let frame: Int64
        let frameCount: Int64
    }

    /// Overruns remembered one by one (the counts keep growing past it).
    static let overrunsKept = 64

    let capacityFrames: Int
    let bytesPerFrame: Int
    private let state: LockedState<State>

    private struct State: @unchecked Sendable {
        // @unchecked: `storage` is only touched under the lock, and freed by the ring's deinit.
        let storage: UnsafeMutableRawPointer
        /// Frames ever written by the device, and the absolute position of the oldest unread one.
        var written: Int64 = 0
        var read: Int64 = 0
        var ended = false
        var overrunCount = 0
        var droppedFrames: Int64 = 0
        var overruns: [Overrun] = []
    }

    /// Told of every delivery (frames so far, and when), to place the audio on a shared clock.
    private let clock: (clock: CaptureClock, sampleRate: Int)?

    init(capacityFrames: Int, bytesPerFrame: Int, clock: (clock: CaptureClock, sampleRate: Int)? = nil) {
        precondition(capacityFrames > 0 && bytesPerFrame > 0)
        self.capacityFrames = capacityFrames
        self.bytesPerFrame = bytesPerFrame
        self.clock = clock
        state = LockedState(State(storage: .allocate(byteCount: capacityFrames * bytesPerFrame, alignment: 16)))
    }

    deinit { state.withLock { $0.storage.deallocate() } }

    /// Device side: appends whole frames of `source`; drops the oldest unread audio to make room.
    /// Ignored once `end()` was called.
    public func write(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress else { return }
        let frames = source.count / bytesPerFrame
        guard frames > 0 else { return }
        state.withLock { state in
            guard !state.ended else { return }
            // More than the whole ring at once: only its newest part can be kept.
            let kept = min(frames, capacityFrames)
            let skipped = frames - kept
            let excess = (state.written + Int64(frames)) - state.read - Int64(capacityFrames)
            if excess > 0 {
                state.overrunCount += 1
                state.droppedFrames += excess
                if state.overruns.count < Self.overrunsKept { state.overruns.append(Overrun(frame: state.read, frameCount: excess)) }
                state.read += excess
            }
            let start = state.written + Int64(skipped)
            copySegments(frames: kept, at: start) { ringByte, linearByte, byteCount in
                (state.storage + ringByte).copyMemory(from: base + (skipped * bytesPerFrame) + linearByte, byteCount: byteCount)
            }
            state.written += Int64(frames)
            clock?.clock.audioDelivered(frames: state.written, sampleRate: clock!.sampleRate, now: MonotonicTime.nanoseconds())
        }
    }

    /// Device side: no more audio will come; the reader gets what is left, then the end.
    func end() { state.withLock { $0.ended = true } }

    /// What a read found.
    enum ReadResult {
        /// `frameCount` frames copied, the first of them at absolute position `firstFrame`.
        case audio(firstFrame: Int64, frameCount: Int)
        /// Fewer than asked are waiting (and the device goes on): come back later for `missing` more.
        case wait(missing: Int)
        /// The device ended and everything was read.
        case ended
    }

    /// Reader side: copies `frames` frames (fewer only after the end) into `destination`.
    func read(frames: Int, into destination: UnsafeMutableRawPointer) -> ReadResult {
        state.withLock { state in
            let available = Int(state.written - state.read)
            if available < frames && !state.ended { return .wait(missing: frames - available) }
            let count = min(frames, available)
            guard count > 0 else { return .ended }
            let first = state.read
            copySegments(frames: count, at: first) { ringByte, linearByte, byteCount in
                (destination + linearByte).copyMemory(from: state.storage + ringByte, byteCount: byteCount)
            }
            state.read += Int64(count)
            return .audio(firstFrame: first, frameCount: count)
        }
    }

    /// A snapshot of what was lost so far.
    var losses: (count: Int, droppedFrames: Int64, first: [Overrun]) {
        state.withLock { ($0.overrunCount, $0.droppedFrames, $0.overruns) }
    }

    /// Frames written but not yet read.
    var fill: Int { state.withLock { Int($0.written - $0.read) } }

    /// The absolute position of the next frame a read returns.
    var readPosition: Int64 { state.withLock { $0.read } }

    /// Calls `body(ringByte, linearByte, byteCount)` for the one or two contiguous parts of the
    /// ring that hold `frames` frames from absolute position `start`.
    private func copySegments(frames: Int, at start: Int64, _ body: (Int, Int, Int) -> Void) {
        let offset = Int(start % Int64(capacityFrames))
        let first = min(frames, capacityFrames - offset)
        body(offset * bytesPerFrame, 0, first * bytesPerFrame)
        if first < frames { body(0, first * bytesPerFrame, (frames - first) * bytesPerFrame) }
    }
}
