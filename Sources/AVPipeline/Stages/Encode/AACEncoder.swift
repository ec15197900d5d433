internal import CFFmpeg

/// Encodes PCM to AAC-LC with FFmpeg's native `aac` encoder.
///
/// Any input sample format, rate and layout is accepted: libswresample converts to the encoder's
/// planar float (and to a rate/layout AAC supports), and an `AVAudioFifo` re-chunks the audio to the
/// encoder's fixed 1024-frame packets (`EncoderCore`). The partial last frame and the encoder's
/// delayed packets are flushed at end of stream.
public final class AACEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    public typealias Buffer = EncodedAudioPacket<AAC>

    public struct Options: Sendable {
        /// Target bit rate in bits per second (all channels together). nil: 96 kb/s. Either way it is
        /// lowered to the most AAC-LC can carry for the stream (8 kHz mono carries 48 kb/s), as
        /// ffmpeg does; `bitrate` says what the encoder was set to.
        public var bitrate: Int? = nil
        /// Output sample rate; nil keeps the input's rate when AAC supports it, else the nearest rate it does.
        public var sampleRate: Int? = nil

        public init(bitrate: Int? = nil, sampleRate: Int? = nil) {
            self.bitrate = bitrate
            self.sampleRate = sampleRate
        }
    }

    public let outputFormat: EncodedAudioFormat
    /// The PCM format the encoder consumes after conversion (planar float).
    public var encoderInputFormat: AudioFormat { core.encoderInputFormat }
    /// The bit rate the encoder was set to: the one asked for, or the most AAC-LC carries when less.
    public let bitrate: Int

    private let core: EncoderCore<Upstream>

    public init(upstream: Upstream, options: Options = Options()) throws {
        let input = upstream.outputFormat
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no native 'aac' encoder")
        }
        let rate = try Self.chooseSampleRate(requested: options.sampleRate, input: input.sampleRate, codec: codec)
        let layout = try EncoderCapabilities.layout(for: input.channelLayout, codec: codec, name: "AAC")
        let bitrate = try Self.bitrate(options.bitrate, sampleRate: rate, channels: layout.channelCount)
        self.bitrate = bitrate
        let encoderInputFormat = AudioFormat(sampleFormat: .fltp, sampleRate: rate, channelLayout: layout)

        let encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(rate)
        context.pointee.bit_rate = Int64(bitrate)
        context.pointee.profile = avp_profile_aac_low()
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        context.pointee.flags |= avp_codec_flag_global_header()
        try layout.withAVChannelLayout { l throws(AVPipelineError) in
            try check(av_channel_layout_copy(&context.pointee.ch_layout, l), "av_channel_layout_copy")
        }
        try encoder.open()
        outputFormat = EncodedAudioFormat(parameters: try CodecParameters(from: context),
                                          timeBase: encoderInputFormat.sampleTimeBase)
        core = try EncoderCore(upstream: upstream, encoder: encoder, encoderInputFormat: encoderInputFormat)
    }

    public func next() async throws -> EncodedAudioPacket<AAC>? {
        try await core.next().map { EncodedAudioPacket(packet: $0, format: outputFormat) }
    }

    // MARK: - Choosing what the encoder is set to

    private static func chooseSampleRate(requested: Int?, input: Int, codec: UnsafePointer<AVCodec>) throws -> Int {
        let supported = EncoderCapabilities.sampleRates(codec)
        guard let requested else { return EncoderCapabilities.sampleRate(for: input, codec: codec) }
        guard supported.isEmpty || supported.contains(requested) else {
            throw AVPipelineError.invalidOption(name: "sample rate", value: "\(requested)",
                                                reason: "AAC supports \(supported.map(String.init).joined(separator: ", "))")
        }
        return requested
    }

    public static var defaultBitrate: Int { 96_000 }

    /// The most AAC-LC carries: 6144 bits per channel per 1024-frame packet.
    public static func maximumBitrate(sampleRate: Int, channels: Int) -> Int { 6 * sampleRate * channels }

    /// The request, lowered to what AAC-LC carries (FFmpeg's encoder would clamp it too).
    private static func bitrate(_ requested: Int?, sampleRate: Int, channels: Int) throws -> Int {
        let maximum = maximumBitrate(sampleRate: sampleRate, channels: channels)
        guard let bitrate = requested else { return Swift.min(defaultBitrate, maximum) }
        guard bitrate > 0 else {
            throw AVPipelineError.invalidOption(name: "bitrate", value: "\(bitrate)", reason: "must be positive")
        }
        return Swift.min(bitrate, maximum)
    }
}
