/// Keeps an audio device fed: the loop `AudioRenderer` and the player's audio lane share.
///
/// The device pulls from a bounded ring (`RenderFeed`) on its own thread. The pump fills the ring
/// up to its high watermark, then rests until the device has played it down to the low one, so the
/// device clock paces decoding and demuxing, and a paused device stops the whole pipeline. The
/// device is held until the ring has been filled once (`PlaybackControl.markPrimed`).
///
/// A caller's loop turns it: `wantsBuffer()` (rests while the ring is full enough), `queue` what it
/// pulled, `writePending()`; between turns it checks what only it knows (stop, cancellation, a
/// seek). Owned by the task that pumps.
final class AudioPump {
    let output: any AudioOutputDevice
    let feed: RenderFeed
    let control: PlaybackControl
    private let pollInterval: Duration
    private var gate: WatermarkGate
    private var pending: PendingPCM?

    /// Attaches a ring of `bufferDuration` seconds (at least two device callbacks' worth) to
    /// `output`, played at `volume`. The pump wakes about four times per low-watermark period (often
    /// enough to refill in time), and at least every `longestRest`.
    init(output: any AudioOutputDevice, bufferDuration: Double, volume: Float, longestRest: Duration) {
        self.output = output
        let format = output.format
        let capacity = max(Int(bufferDuration * Double(format.sampleRate)), 2 * output.bufferFrames)
        feed = RenderFeed(format: format, capacityFrames: capacity)
        feed.volume = volume
        output.attach(feed)
        control = PlaybackControl(feed: feed, output: output)
        gate = WatermarkGate(low: feed.ring.capacity / 2, high: feed.ring.capacity)
        let lowMilliseconds = capacity / 2 * 1000 / format.sampleRate
        pollInterval = min(.milliseconds(max(lowMilliseconds / 4, 2)), longestRest)
    }

    /// Whether the ring wants the next buffer now: not while one is still being written; and with
    /// the ring full enough, the device may start and the pump rests instead.
    func wantsBuffer() async throws -> Bool {
        guard pending == nil else { return false }
        if gate.shouldProduce(fill: feed.ring.fill) { return true }
        control.markPrimed()
        try await rest()
        return false
    }

    /// The buffer to write next (after `wantsBuffer()` said so).
    func queue(_ buffer: PCMBuffer) { pending = PendingPCM(buffer) }

    /// Writes what fits of the queued buffer; when the ring is full, lets the device start and
    /// rests while it plays.
    func writePending() async throws {
        guard pending != nil else { return }
        let taken = pending!.write(into: feed.ring)
        if pending!.isWritten { pending = nil }
        if taken == 0 {
            _ = gate.shouldProduce(fill: feed.ring.fill)
            control.markPrimed()
            try await rest()
        }
    }

    /// Forgets the buffer being written (it is of a position left by a seek).
    func discardPending() { pending = nil }

    /// The source has ended: a short ring is the tail from now on, and the device may start.
    func finish() {
        feed.markEnded()
        control.markPrimed()
    }

    /// Sleeps a poll interval (or `duration`); cancellation throws `.cancelled`.
    func rest(for duration: Duration? = nil) async throws {
        do {
            try await Task.sleep(for: duration ?? pollInterval)
        } catch {
            throw AVPipelineError.cancelled
        }
    }
}
