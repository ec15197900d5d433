internal import CFFmpeg

/// What a conversion should produce; unset fields keep the input's value.
public struct AudioFormatRequest: Sendable, Hashable {
    /// The sample format wanted; nil keeps the input's.
    public var sampleFormat: SampleFormat?
    /// The sample rate wanted; nil keeps the input's.
    public var sampleRate: Int?
    /// The channel layout wanted; nil keeps the input's.
    public var channelLayout: ChannelLayout?

    /// A request that changes the fields given.
    public init(sampleFormat: SampleFormat? = nil, sampleRate: Int? = nil, channelLayout: ChannelLayout? = nil) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelLayout = channelLayout
    }

    /// The concrete format this request makes of `input`.
    public func resolved(against input: AudioFormat) -> AudioFormat {
        AudioFormat(sampleFormat: sampleFormat ?? input.sampleFormat, sampleRate: sampleRate ?? input.sampleRate,
                    channelLayout: channelLayout ?? input.channelLayout)
    }
}

/// Converts PCM to another sample format, rate and/or channel layout with libswresample.
/// When the input already has the requested format, buffers pass through untouched (no copy).
/// Resampler delay is flushed at end of stream, so no audio is lost at the tail.
public final class Resample<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    /// PCM in the requested format.
    public typealias Buffer = PCMBuffer

    public let outputFormat: AudioFormat
    private let upstream: Upstream
    private let resampler: Resampler?
    private let buffers: AudioBufferPool
    private var nextPTS: Int64?
    private var flushed = false

    /// Converts `upstream`'s PCM as `request` says. Throws `.invalidOption` for a rate outside 1…768000 Hz or a channel count outside 1…64.
    public init(upstream: Upstream, to request: AudioFormatRequest) throws {
        let input = upstream.outputFormat
        let output = request.resolved(against: input)
        guard (1...768_000).contains(output.sampleRate) else {
            throw AVPipelineError.invalidOption(name: "sample rate", value: "\(output.sampleRate)", reason: "must be between 1 and 768000 Hz")
        }
        guard (1...64).contains(output.channelCount) else {
            throw AVPipelineError.invalidOption(name: "channels", value: "\(output.channelCount)", reason: "must be between 1 and 64")
        }
        self.upstream = upstream
        outputFormat = output
        buffers = AudioBufferPool(format: output)
        // Only the channel count changes: an unspecified layout gets FFmpeg's default order first.
        resampler = input == output ? nil : try Resampler(from: Self.specified(input), to: Self.specified(output))
    }

    /// Converts `upstream`'s PCM to exactly `format`.
    public convenience init(upstream: Upstream, to format: AudioFormat) throws {
        try self.init(upstream: upstream, to: AudioFormatRequest(sampleFormat: format.sampleFormat, sampleRate: format.sampleRate,
                                                                 channelLayout: format.channelLayout))
    }

    public func next() async throws -> PCMBuffer? {
        guard let resampler else { return try await upstream.next() }
        while true {
            try checkCancellation()
            if let input = try await upstream.next() {
                guard input.format == upstream.outputFormat else {
                    throw AVPipelineError.unsupportedSampleFormat("input changed format mid-stream (\(upstream.outputFormat) → \(input.format))")
                }
                if nextPTS == nil {
                    nextPTS = input.presentationTime?.converted(to: outputFormat.sampleTimeBase).value ?? 0
                }
                if let out = try convert(input.frame.pointer, resampler, inputFrames: input.frameCount) { return out }
            } else {
                guard !flushed else { return nil }
                flushed = true
                return try convert(nil, resampler, inputFrames: 0)
            }
        }
    }

    /// Converts one input frame (or flushes with `nil`); nil when the resampler kept everything buffered.
    private func convert(_ source: UnsafePointer<AVFrame>?, _ resampler: Resampler, inputFrames: Int) throws(AVPipelineError) -> PCMBuffer? {
        let capacity = resampler.maximumOutput(forInput: inputFrames)
        guard capacity > 0 else { return nil }
        let frame = try buffers.frame(frameCount: capacity)
        let written = try resampler.convert(source, into: frame.pointer, capacity: capacity)
        guard written > 0 else { return nil }
        frame.pointer.pointee.nb_samples = Int32(written)
        let pts = nextPTS ?? 0
        frame.pointer.pointee.pts = pts
        nextPTS = pts + Int64(written)
        return PCMBuffer(frame: frame, format: outputFormat)
    }

    private static func specified(_ format: AudioFormat) -> AudioFormat {
        AudioFormat(sampleFormat: format.sampleFormat, sampleRate: format.sampleRate, channelLayout: format.channelLayout.specified)
    }
}

extension SampleSource where Buffer == PCMBuffer {
    /// This PCM converted to `request` (unset fields keep the input's value).
    public func resampled(to request: AudioFormatRequest) throws -> Resample<Self> {
        try Resample(upstream: self, to: request)
    }

    /// Writes this PCM to a WAV file; returns once it is complete and in place.
    @discardableResult
    public func writeWAV(to path: String, overwrite: Bool = false,
                         progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await WAVWriter(upstream: self, path: path, overwrite: overwrite).run(progress: progress)
    }
}
