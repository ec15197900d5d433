/// How an `AudioRenderer` plays.
public struct AudioRendererOptions: Sendable {
    /// Output device name (see `AudioOutputDevices.names()`); nil is the system default.
    public var device: String?
    /// 0 … 1.
    public var volume: Float
    /// Seconds of audio the ring holds (its high watermark); refilled when half has played.
    public var bufferDuration: Double

    public init(device: String? = nil, volume: Float = 1, bufferDuration: Double = 0.2) {
        self.device = device
        self.volume = volume
        self.bufferDuration = bufferDuration
    }
}

/// Plays PCM on an audio output device (SDL2: PulseAudio/PipeWire/ALSA on Linux, CoreAudio on macOS).
///
/// The device pulls: its callback copies from a bounded ring of PCM (silence and an underrun count
/// when the ring runs dry). `run()` is the pump: it pulls from the pipeline only while the ring is
/// below its high watermark, then rests until the device has played it down to the low watermark,
/// so the device clock paces decoding and demuxing, and a paused device stops the whole pipeline.
/// Audio is converted to whatever format the device granted. At end of stream `run()` waits until
/// the last sample has been played.
public final class AudioRenderer<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    public typealias Options = AudioRendererOptions

    /// The format the device plays (what the pipeline's PCM is converted to).
    public var deviceFormat: AudioFormat { output.format }
    /// Pause/resume, stop, volume, position and counters, usable from any task.
    public let control: PlaybackControl

    private let source: Resample<Upstream>
    private let output: any AudioOutput
    private let feed: RenderFeed
    private let pollInterval: Duration

    /// Opens the device (paused; `run()` starts it). Throws `deviceUnavailable` when no device can
    /// be opened.
    public convenience init(upstream: Upstream, options: Options = Options()) throws {
        try Self.validate(options)
        let output = try SDLAudioOutput(deviceName: options.device, preferred: upstream.outputFormat)
        try self.init(upstream: upstream, output: output, options: options)
    }

    init(upstream: Upstream, output: any AudioOutput, options: Options) throws {
        try Self.validate(options)
        self.output = output
        let format = output.format
        source = try Resample(upstream: upstream, to: format)
        let capacity = max(Int(options.bufferDuration * Double(format.sampleRate)), 2 * output.bufferFrames)
        feed = RenderFeed(format: format, capacityFrames: capacity)
        feed.volume = options.volume
        output.attach(feed)
        control = PlaybackControl(feed: feed, output: output)
        // Wake up about four times per low-watermark period: often enough to refill in time.
        let lowMilliseconds = capacity / 2 * 1000 / format.sampleRate
        pollInterval = .milliseconds(min(max(lowMilliseconds / 4, 2), 50))
    }

    deinit { output.close() }

    /// Plays everything from upstream and returns once the last sample was played (or `stop()` was
    /// called). Cancelling the task stops playback at once and throws `.cancelled`.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> RenderStatistics {
        defer { output.close() }
        let ring = feed.ring
        var gate = WatermarkGate(low: ring.capacity / 2, high: ring.capacity)
        var pending: PendingPCM?
        while !control.isStopped {
            try checkCancellation()
            progress?(control.position)
            if pending == nil {
                guard gate.shouldProduce(fill: ring.fill) else {
                    control.markPrimed()
                    try await rest()
                    continue
                }
                guard let next = try await source.next() else { break }
                pending = PendingPCM(next)
            }
            let taken = pending!.write(into: ring)
            if pending!.isWritten { pending = nil }
            if taken == 0 {
                // The ring is full: the device may start, and the pump waits for it to play.
                _ = gate.shouldProduce(fill: ring.fill)
                control.markPrimed()
                try await rest()
            }
        }
        feed.markEnded()
        control.markPrimed()
        while !control.isStopped && !feed.isDrained {
            progress?(control.position)
            try await rest()
        }
        if !control.isStopped {
            // The device's own buffers (about two callbacks' worth) still have to play out.
            try await rest(for: .milliseconds(2 * output.bufferFrames * 1000 / feed.format.sampleRate))
        }
        progress?(control.position)
        return control.statistics
    }

    /// The output devices the system offers (names for `Options.device`).
    public static func outputDevices() throws -> [String] { try AudioOutputDevices.names() }

    private func rest(for duration: Duration? = nil) async throws {
        do {
            try await Task.sleep(for: duration ?? pollInterval)
        } catch {
            throw AVPipelineError.cancelled
        }
    }

    private static func validate(_ options: Options) throws {
        guard (0...1).contains(options.volume) else {
            throw AVPipelineError.invalidOption(name: "volume", value: "\(options.volume)", reason: "must be between 0 and 1")
        }
        guard options.bufferDuration >= 0.02, options.bufferDuration <= 10 else {
            throw AVPipelineError.invalidOption(name: "buffer duration", value: "\(options.bufferDuration)",
                                                reason: "must be between 0.02 and 10 seconds")
        }
    }
}

extension SampleSource where Buffer == PCMBuffer {
    /// Plays this PCM on the default (or a named) output device; returns when it has been played.
    @discardableResult
    public func play(_ options: AudioRenderer<Self>.Options = .init(),
                     progress: ((MediaTime) -> Void)? = nil) async throws -> RenderStatistics {
        try await AudioRenderer(upstream: self, options: options).run(progress: progress)
    }
}
