internal import CFFmpeg

/// The pull loop every audio encoder shares: frames from a `PCMFramer` (converted, re-chunked to
/// the encoder's frame size, stamped in samples) into one encoder, flushed at end of stream (the
/// partial last frame, then the encoder's delayed packets).
final class EncoderCore<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    let encoder: CodecContext
    let encoderInputFormat: AudioFormat
    private let framer: PCMFramer<Upstream>
    private var pending: Packet?
    private var flushSent = false

    /// `encoder` is open and set to `encoderInputFormat`.
    init(upstream: Upstream, encoder: CodecContext, encoderInputFormat: AudioFormat) throws {
        self.encoder = encoder
        self.encoderInputFormat = encoderInputFormat
        framer = try PCMFramer(upstream: upstream, format: encoderInputFormat, frameSize: Self.frameSize(of: encoder))
    }

    /// Samples per frame the encoder takes; for encoders that take any size, a convenient chunk.
    static func frameSize(of encoder: CodecContext) -> Int {
        let size = Int(encoder.pointer.pointee.frame_size)
        let variable = (encoder.pointer.pointee.codec.pointee.capabilities & avp_codec_cap_variable_frame_size()) != 0
        return size > 0 && !variable ? size : 4096
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
            guard !flushSent else { continue }
            if let frame = try await framer.next() {
                guard try encoder.send(frame: frame.pointer) == .accepted else {
                    throw AVPipelineError.ffmpeg(call: "avcodec_send_frame", code: averrorEAGAIN,
                                                 message: "encoder refused input while it had no output")
                }
            } else {
                flushSent = true
                _ = try encoder.send(frame: nil)
            }
        }
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
