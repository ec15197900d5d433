internal import CFFmpeg

/// The pull loop every audio encoder shares: PCM from upstream, converted by libswresample to the
/// encoder's format when it differs, re-chunked by an `AVAudioFifo` to the encoder's fixed frame
/// size (any size for encoders that take any), stamped in samples, and flushed at end of stream
/// (the partial last frame, then the encoder's delayed packets).
final class EncoderCore<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    let encoder: CodecContext
    let encoderInputFormat: AudioFormat
    private let upstream: Upstream
    private let resampler: Resampler?
    private let fifo: AudioFIFO
    /// Samples per frame the encoder takes; for encoders that take any size, a convenient chunk.
    private let frameSize: Int
    private var converted: Frame?
    private var pending: Packet?
    private var nextPTS: Int64?
    private var upstreamEnded = false
    private var flushSent = false

    /// `encoder` is open and set to `encoderInputFormat`.
    init(upstream: Upstream, encoder: CodecContext, encoderInputFormat: AudioFormat) throws {
        self.upstream = upstream
        self.encoder = encoder
        self.encoderInputFormat = encoderInputFormat
        let size = Int(encoder.pointer.pointee.frame_size)
        let variable = (encoder.pointer.pointee.codec.pointee.capabilities & avp_codec_cap_variable_frame_size()) != 0
        frameSize = size > 0 && !variable ? size : 4096
        let input = upstream.outputFormat
        resampler = input == encoderInputFormat ? nil : try Resampler(from: input, to: encoderInputFormat)
        fifo = try AudioFIFO(format: encoderInputFormat, initialCapacity: frameSize * 4)
    }

    /// The next encoded packet, or nil at the end.
    func next() async throws -> Packet? {
        while true {
            try checkCancellation()
            let packet = try pending ?? Packet()
            switch try encoder.receive(packet: packet) {
            case .got:
                pending = nil
                return packet
            case .drained:
                return nil
            case .needsInput:
                pending = packet
            }
            if fifo.count >= frameSize || (upstreamEnded && fifo.count > 0) {
                try sendFrame()
            } else if upstreamEnded {
                guard !flushSent else { continue }
                flushSent = true
                _ = try encoder.send(frame: nil)
            } else if let pcm = try await upstream.next() {
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
            nextPTS = pcm.presentationTime?.converted(to: encoderInputFormat.sampleTimeBase).value ?? 0
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

    private func sendFrame() throws(AVPipelineError) {
        let frame = try fifo.read(maximum: frameSize)
        let pts = nextPTS ?? 0
        frame.pointer.pointee.pts = pts
        nextPTS = pts + Int64(frame.sampleCount)
        guard try encoder.send(frame: frame.pointer) == .accepted else {
            throw .ffmpeg(call: "avcodec_send_frame", code: averrorEAGAIN, message: "encoder refused input while it had no output")
        }
    }

    /// A reusable conversion buffer holding at least `capacity` frames.
    private func scratch(capacity: Int) throws(AVPipelineError) -> Frame {
        if let converted, converted.sampleCount >= capacity { return converted }
        let frame = try Frame(audio: encoderInputFormat, frameCount: Swift.max(capacity, frameSize))
        converted = frame
        return frame
    }
}

/// What an encoder supports, read from its `AVCodec`.
enum EncoderCapabilities {
    static func sampleRates(_ codec: UnsafePointer<AVCodec>) -> [Int] {
        var supported: [Int] = []
        if var rates = avp_codec_sample_rates(codec) {
            while rates.pointee != 0 { supported.append(Int(rates.pointee)); rates += 1 }
        }
        return supported
    }

    static func layouts(_ codec: UnsafePointer<AVCodec>) -> [ChannelLayout] {
        var supported: [ChannelLayout] = []
        if var layout = avp_codec_channel_layouts(codec) {
            while layout.pointee.nb_channels != 0 { supported.append(ChannelLayout(layout.pointee)); layout += 1 }
        }
        return supported
    }

    static func sampleFormats(_ codec: UnsafePointer<AVCodec>) -> [SampleFormat] {
        var supported: [SampleFormat] = []
        if var format = avp_codec_sample_formats(codec) {
            while format.pointee != AV_SAMPLE_FMT_NONE {
                if let known = SampleFormat(rawFFmpegValue: format.pointee.rawValue) { supported.append(known) }
                format += 1
            }
        }
        return supported
    }

    /// The input's layout when the codec can code it, else one with the same channel count.
    static func layout(for input: ChannelLayout, codec: UnsafePointer<AVCodec>, name: String) throws -> ChannelLayout {
        let supported = layouts(codec)
        let wanted = input.specified
        if supported.isEmpty || supported.contains(wanted) { return wanted }
        if let sameCount = supported.first(where: { $0.channelCount == wanted.channelCount }) { return sameCount }
        throw AVPipelineError.unsupportedSampleFormat(
            "\(name) cannot code \(input.channelCount) channels (\(input)); it supports \(supported.map(\.description).joined(separator: ", "))")
    }

    /// `input` when the codec takes it, else the nearest rate it does.
    static func sampleRate(for input: Int, codec: UnsafePointer<AVCodec>) -> Int {
        let supported = sampleRates(codec)
        guard !supported.isEmpty, !supported.contains(input) else { return input }
        return supported.min(by: { abs($0 - input) < abs($1 - input) })!
    }
}
