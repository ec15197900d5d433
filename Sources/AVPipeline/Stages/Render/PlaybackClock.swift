/// Where playback is, in seconds on the media's timeline: the master clock pictures are shown by.
///
/// With audio it is the audio device's clock, as ffplay keeps it: the presentation time of the
/// sample the listener hears now. Each device callback stamps the ring's read count and the time
/// it ran; the pump records which presentation time each stretch of the ring holds; the clock is
/// the stamped position, less what the device still holds (two callbacks' worth, ffplay's
/// estimate of its latency), plus the time since the stamp. Without audio it is the wall clock.
/// Either way it holds still while paused and restarts from the target after a seek.
///
/// Until the device plays its first audio the audio clock reads the start, so the first picture
/// stays up until the sound begins. That can take a while: a PulseAudio null sink left idle plays a
/// new stream only once the block of up to 2 s it rendered before the stream came is over (~1 s in
/// bench runs). ffplay's clock runs on from its first callback instead, and its pictures run ahead
/// of their sound by as much (measured: flashes 1.2–1.3 s before their beeps, then off by up to
/// 0.45 s for seconds while it slows down to resync); these wait for it and are in sync from the
/// first beep on (15–49 ms in the same measurement, the recorder's latency included).
final class PlaybackClock: Sendable {
    /// What the audio clock reads from the device side.
    struct AudioSide: Sendable {
        let feed: RenderFeed
        let sampleRate: Int
        /// Sample frames between the ring's read position and the listener's ear.
        let latencyFrames: Int
        /// How far past the last stamp the clock may run while audio is still coming (an underrun
        /// stops the sound, so it must stop the clock too).
        let maximumExtrapolationFrames: Int
    }

    /// One stretch of the ring: from running frame `frame` on, the audio of presentation time `time`.
    private struct Stretch {
        let frame: Int
        let time: Double
        let generation: Int
    }

    private struct State {
        var generation = 0
        /// Where playback (re)starts: the start, or the latest seek's target.
        var target: Double
        var paused = false
        /// The value shown while paused, and after a resume until the audio moves again.
        var frozen: Double?
        var resumedAt = 0
        /// Wall clock: the value it had at a moment (monotonic nanoseconds).
        var wallAnchor: (nanoseconds: Int, value: Double)?
        var stretches: [Stretch] = []
    }

    private let audio: AudioSide?
    private let state: LockedState<State>

    init(start: Double, audio: AudioSide?) {
        self.audio = audio
        state = LockedState(State(target: start))
    }

    var usesAudio: Bool { audio != nil }

    /// Seconds on the media timeline now.
    func now() -> Double {
        let nanoseconds = MonotonicTime.nanoseconds()
        return state.withLock { state in
            if state.paused, let frozen = state.frozen { return frozen }
            guard let audio else {
                guard let anchor = state.wallAnchor else { return state.frozen ?? state.target }
                return anchor.value + Double(nanoseconds - anchor.nanoseconds) / 1e9
            }
            guard let stamp = audio.feed.stamp, !(state.frozen != nil && stamp.nanoseconds <= state.resumedAt) else {
                return state.frozen ?? state.target
            }
            state.frozen = nil
            var elapsed = (nanoseconds - stamp.nanoseconds) * audio.sampleRate / 1_000_000_000
            if !audio.feed.isEnded { elapsed = min(elapsed, audio.maximumExtrapolationFrames) }
            let heard = stamp.consumedFrames - audio.latencyFrames + elapsed
            return Self.time(at: heard, in: &state, sampleRate: audio.sampleRate)
        }
    }

    /// The presentation time of running frame `frame`, from the current generation's stretches
    /// (older ones are dropped as the position passes them).
    private static func time(at frame: Int, in state: inout State, sampleRate: Int) -> Double {
        state.stretches.removeAll { $0.generation != state.generation }
        guard let first = state.stretches.first else { return state.target }
        guard frame >= first.frame else { return first.time }
        let index = state.stretches.lastIndex { $0.frame <= frame }!
        if index > 0 { state.stretches.removeFirst(index) }
        let stretch = state.stretches[0]
        return stretch.time + Double(frame - stretch.frame) / Double(sampleRate)
    }

    /// The pump wrote audio of presentation time `time` at running frame `frame` of the ring.
    func audioWritten(atFrame frame: Int, time: Double, generation: Int) {
        state.withLock { state in
            guard generation == state.generation else { return }
            // A stretch continuing the previous one adds nothing.
            if let last = state.stretches.last, let rate = audio?.sampleRate,
               abs(last.time + Double(frame - last.frame) / Double(rate) - time) < 0.5 / Double(rate) { return }
            state.stretches.append(Stretch(frame: frame, time: time, generation: generation))
        }
    }

    /// Playback jumps to `target`; the clock reads `target` until the new position's audio plays.
    func seek(to target: Double, generation: Int) {
        state.withLock { state in
            state.generation = generation
            state.target = target
            state.stretches.removeAll()
            state.frozen = state.paused ? target : nil
            // The wall clock waits at the target for the first picture of the new position (as
            // at the start): decoding up to it must not count as lateness.
            if audio == nil { state.wallAnchor = nil }
        }
    }

    func pause() {
        let value = now()
        state.withLock { state in
            guard !state.paused else { return }
            state.paused = true
            state.frozen = value
        }
    }

    func resume() {
        let nanoseconds = MonotonicTime.nanoseconds()
        state.withLock { state in
            guard state.paused else { return }
            state.paused = false
            state.resumedAt = nanoseconds
            // A wall clock still waiting for its first picture keeps waiting.
            if audio == nil, state.wallAnchor != nil {
                state.wallAnchor = (nanoseconds, state.frozen ?? state.target)
                state.frozen = nil
            }
        }
    }

    /// Starts the wall clock at `time`, the first picture's (a video-only playback begins, and goes
    /// on after a seek, when its first picture is shown); nothing with audio, whose clock is the device's.
    func startWallClock(at time: Double) {
        let nanoseconds = MonotonicTime.nanoseconds()
        state.withLock { state in
            if audio == nil, state.wallAnchor == nil {
                state.target = time
                state.wallAnchor = (nanoseconds, time)
                if state.paused { state.frozen = time }
            }
        }
    }
}
