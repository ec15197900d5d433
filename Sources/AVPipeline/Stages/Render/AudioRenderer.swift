/// How an `AudioRenderer` plays.
public struct AudioRendererOptions: Sendable {
    /// Output device name (see `AudioOutputDevices.names()`); nil is the system default.
    public var device: String?
    /// 0 … 1.
    public var volume: Float
    /// Seconds of audio the ring holds (its high watermark); refilled when half has played.
    public var bufferDuration: Double

    /// Playback on the default device at full volume, 0.2 s ahead, unless told otherwise.
    public init(device: String? = nil, volume: Float = 1, bufferDuration: Double = 0.2) {
        self.device = device
        self.volume = volume
        self.bufferDuration = bufferDuration
    }
}

/// Plays PCM on an audio output device (an `AudioOutputDevice`; AVPipelineDevices' SDL2 one plays
/// through PulseAudio/PipeWire/ALSA on Linux, CoreAudio on macOS).
///
/// The device pulls: its callback copies from a bounded ring of PCM (silence and an underrun count
/// when the ring runs dry). `run()` turns an `AudioPump`: it pulls from the pipeline only while the
/// ring is below its high watermark, then rests until the device has played it down to the low
/// watermark, so the device clock paces decoding and demuxing, and a paused device stops the whole
/// pipeline.
/// Audio is converted to whatever format the device granted. At end of stream `run()` waits until
/// the last sample has been played.
public final class AudioRenderer<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    /// The options, spelled `AudioRenderer.Options` at the call site.
    public typealias Options = AudioRendererOptions

    /// The format the device plays (what the pipeline's PCM is converted to).
    public var deviceFormat: AudioFormat { pump.output.format }
    /// Pause/resume, stop, volume, position and counters, usable from any task.
    public let control: PlaybackControl

    private let source: Resample<Upstream>
    private let pump: AudioPump

    /// Opens `options.device` through `devices` (paused; `run()` starts it). Throws
    /// `deviceUnavailable` (`.audioOutput`) when no device can be opened. (AVPipelineDevices adds
    /// `init(upstream:options:)`, which opens an SDL2 device.)
    public convenience init(upstream: Upstream, devices: some PlaybackDevices, options: Options = Options()) throws {
        try Self.validate(options)
        let output = try devices.openAudioOutput(named: options.device, preferred: upstream.outputFormat)
        try self.init(upstream: upstream, output: output, options: options)
    }

    /// Plays on `output`, a device already opened (paused; `run()` starts it).
    public init(upstream: Upstream, output: any AudioOutputDevice, options: Options = Options()) throws {
        try Self.validate(options)
        source = try Resample(upstream: upstream, to: output.format)
        pump = AudioPump(output: output, bufferDuration: options.bufferDuration, volume: options.volume,
                         longestRest: .milliseconds(50))
        control = pump.control
    }

    deinit { pump.output.close() }

    /// Plays everything from upstream and returns once the last sample was played (or `stop()` was
    /// called). Cancelling the task stops playback at once and throws `.cancelled`.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> AudioPlaybackStatistics {
        let (pump, output, feed) = (pump, pump.output, pump.feed)
        defer { output.close() }
        while !control.isStopped {
            try checkCancellation()
            progress?(control.position)
            if try await pump.wantsBuffer() {
                guard let next = try await source.next() else { break }
                pump.queue(next)
            }
            try await pump.writePending()
        }
        pump.finish()
        while !control.isStopped && !feed.isDrained {
            progress?(control.position)
            try await pump.rest()
        }
        if !control.isStopped {
            // The device's own buffers (about two callbacks' worth) still have to play out.
            try await pump.rest(for: .milliseconds(2 * output.bufferFrames * 1000 / feed.format.sampleRate))
        }
        progress?(control.position)
        return control.statistics
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
    /// Plays this PCM on the default (or a named) output device of `devices`; returns when it has
    /// been played. (AVPipelineDevices adds `play(_:progress:)` on SDL2's devices.)
    @discardableResult
    public func play(on devices: some PlaybackDevices, _ options: AudioRenderer<Self>.Options = .init(),
                     progress: ((MediaTime) -> Void)? = nil) async throws -> AudioPlaybackStatistics {
        try await AudioRenderer(upstream: self, devices: devices, options: options).run(progress: progress)
    }
}
