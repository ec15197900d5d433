internal import CFFmpeg

/// The audio encoders' feed: PCM from upstream, converted by libswresample to the encoder's
/// format when it differs, re-chunked by an `AVAudioFifo` to the encoder's fixed frame size, and
/// stamped in samples. The last frame may be shorter; `nil` after it.
final class AudioFeed<Upstream: SampleSource>: EncoderFeed where Upstream.Buffer == PCMBuffer {
    let format: AudioFormat
    let frameSize: Int
    private let upstream: Upstream
    private let resampler: Resampler?
    private let fifo: AudioFIFO
    private var converted: Frame?
    private var nextPTS: Int64?
    private var upstreamEnded = false

    init(upstream: Upstream, format: AudioFormat, frameSize: Int) throws {
        self.upstream = upstream
        self.format = format
        self.frameSize = frameSize
        let input = upstream.outputFormat
        resampler = Self.sameSamples(input, format) ? nil : try Resampler(from: input, to: format)
        fifo = try AudioFIFO(format: format, initialCapacity: frameSize * 4)
    }

    /// A feed in frames of the size `encoder` takes (open, and set to `format`).
    convenience init(upstream: Upstream, format: AudioFormat, encoder: CodecContext) throws {
        try self.init(upstream: upstream, format: format, frameSize: Self.frameSize(of: encoder))
    }

    /// Samples per frame the encoder takes; for encoders that take any size, a convenient chunk.
    static func frameSize(of encoder: CodecContext) -> Int {
        let size = Int(encoder.pointer.pointee.frame_size)
        let variable = (encoder.pointer.pointee.codec.pointee.capabilities & avp_codec_cap_variable_frame_size()) != 0
        return size > 0 && !variable ? size : 4096
    }

    /// The next frame of `frameSize` samples (fewer at the very end), or nil at the end.
    func next() async throws -> Frame? {
        while true {
            try checkCancellation()
            if fifo.count >= frameSize || (upstreamEnded && fifo.count > 0) { return try takeFrame() }
            if upstreamEnded { return nil }
            if let pcm = try await upstream.next() {
                try push(pcm)
            } else {
                upstreamEnded = true
                try flushResampler()
            }
        }
    }

    private func push(_ pcm: PCMBuffer) throws {
        guard pcm.format == upstream.outputFormat else {
            throw AVPipelineError.unsupportedSampleFormat("input changed format mid-stream (\(upstream.outputFormat) → \(pcm.format))")
        }
        if nextPTS == nil {
            nextPTS = pcm.presentationTime?.converted(to: format.sampleTimeBase).value ?? 0
        }
        guard let resampler else {
            try fifo.write(pcm.frame.pointer)
            return
        }
        let out = try scratch(capacity: resampler.maximumOutput(forInput: pcm.frameCount))
        let written = try resampler.convert(pcm.frame.pointer, into: out.pointer, capacity: out.sampleCount)
        try fifo.write(out.pointer, frameCount: written)
    }

    private func flushResampler() throws(AVPipelineError) {
        guard let resampler else { return }
        let capacity = resampler.maximumOutput(forInput: 0)
        guard capacity > 0 else { return }
        let out = try scratch(capacity: capacity)
        let written = try resampler.convert(nil, into: out.pointer, capacity: out.sampleCount)
        try fifo.write(out.pointer, frameCount: written)
    }

    private func takeFrame() throws(AVPipelineError) -> Frame {
        let frame = try fifo.read(maximum: frameSize)
        let pts = nextPTS ?? 0
        frame.pointer.pointee.pts = pts
        nextPTS = pts + Int64(frame.sampleCount)
        return frame
    }

    /// Whether `input` needs no conversion to `format`: the same samples, or channels in no stated
    /// order (a plain WAV's) where `format` has as many in FFmpeg's default order, which is what
    /// ffmpeg takes them to be. Converting only the label would copy every sample once more (a
    /// third of an encode's work outside the encoder).
    private static func sameSamples(_ input: AudioFormat, _ format: AudioFormat) -> Bool {
        guard input.sampleFormat == format.sampleFormat, input.sampleRate == format.sampleRate else { return false }
        return input.channelLayout == format.channelLayout
            || (input.channelLayout.mask == nil && input.channelLayout.specified == format.channelLayout)
    }

    /// A reusable conversion buffer holding at least `capacity` frames.
    private func scratch(capacity: Int) throws(AVPipelineError) -> Frame {
        if let converted, converted.sampleCount >= capacity { return converted }
        let frame = try Frame(audio: format, frameCount: Swift.max(capacity, frameSize))
        converted = frame
        return frame
    }
}
