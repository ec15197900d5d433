/// Controls a running `AudioRenderer` from any task or thread: pause/resume, stop, volume, and the
/// play position and counters.
public final class PlaybackControl: Sendable {
    private struct State {
        var paused = false
        /// The pump has filled the buffer once (or the stream ended): the device may run.
        var primed = false
        var stopped = false
    }

    let feed: RenderFeed
    private let output: any AudioOutputDevice
    private let state = LockedState(State())

    init(feed: RenderFeed, output: any AudioOutputDevice) {
        self.feed = feed
        self.output = output
    }

    /// Holds playback; the pump stops pulling once the buffer is full.
    public func pause() { update { $0.paused = true } }
    /// Lets playback continue from where it was held.
    public func resume() { update { $0.paused = false } }
    /// Ends playback now (no drain); `run()` returns.
    public func stop() { update { $0.stopped = true } }

    /// Whether playback is held by `pause()`.
    public var isPaused: Bool { state.withLock { $0.paused } }
    /// Whether `stop()` has ended playback.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// 0 (silent) … 1 (unchanged); applied by the device callback, so it takes effect at once.
    public var volume: Float {
        get { feed.volume }
        set { feed.volume = newValue }
    }

    /// Counters so far: frames played, underruns.
    public var statistics: AudioPlaybackStatistics { feed.statistics }

    /// How much of the source the device has been handed.
    public var position: MediaTime {
        MediaTime(value: Int64(feed.statistics.playedSampleFrames), timeBase: feed.format.sampleTimeBase)
    }

    func markPrimed() { update { $0.primed = true } }

    /// Drops the audio queued for the device (after a seek): the device is held while the ring is
    /// emptied, and stays held until the pump has refilled it (`markPrimed`).
    func discardQueued() {
        update { state in
            output.setPaused(true)
            feed.ring.discardUnread()
            state.primed = false
        }
    }

    /// Applies a state change and the device state it implies under one lock, so two threads can
    /// never leave the device running when the last word was "pause".
    private func update(_ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            output.setPaused(!state.primed || state.paused || state.stopped)
        }
    }
}
