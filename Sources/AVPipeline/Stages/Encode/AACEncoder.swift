internal import CFFmpeg

/// Encodes PCM to AAC-LC with FFmpeg's native `aac` encoder.
///
/// Any input sample format, rate and layout is accepted: libswresample converts to the encoder's
/// planar float (and to a rate/layout AAC supports), and an `AVAudioFifo` re-chunks the audio to the
/// encoder's fixed 1024-frame packets (`AudioFeed`, pulled by `EncoderCore`). The partial last
/// frame and the encoder's delayed packets are flushed at end of stream.
public final class AACEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    public typealias Buffer = EncodedAudioPacket<AAC>

    /// The encoder's settings: `AudioEncoderOptions`, with `encoder` "aac".
    public typealias Options = AudioEncoderOptions

    private let sharedFormat: SharedFormat<EncodedAudioFormat>
    public var outputFormat: EncodedAudioFormat { sharedFormat.value }
    /// The PCM format the encoder consumes after conversion (planar float).
    public let encoderInputFormat: AudioFormat
    /// The bit rate the encoder was set to: the one asked for, or the most AAC-LC carries when less;
    /// 0 in constant-quality mode.
    public let bitRate: Int

    private enum Core {
        case sequential(EncoderCore<AudioFeed<Upstream>>)
        case parallel(ParallelAACEncoderCore<Upstream>)
    }
    private let core: Core

    /// Opens FFmpeg's native AAC encoder for `upstream`'s PCM (converted to what it takes), with the bit
    /// rate lowered to AAC-LC's limit if needed; fails when this FFmpeg has no native `aac` encoder,
    /// or when `options.encoder` names another one (`AudioEncoder` takes any).
    public init(upstream: Upstream, options: Options = Options()) throws {
        guard options.isNativeAAC else {
            throw AVPipelineError.invalidOption(name: "encoder", value: options.encoder, reason: "AACEncoder encodes with FFmpeg's native 'aac' only; AudioEncoder takes any")
        }
        let input = upstream.outputFormat
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no native 'aac' encoder")
        }
        let rate = try Self.chooseSampleRate(requested: options.sampleRate, input: input.sampleRate, codec: codec)
        let layout = try EncoderCapabilities.layout(for: input.channelLayout, codec: codec, name: "AAC")
        if options.quality != nil, options.bitRate != nil {
            throw AVPipelineError.invalidOption(name: "quality", value: "\(options.quality!)", reason: "give a bit rate or a quality, not both")
        }
        if let quality = options.quality, !(quality > 0 && quality <= 10) {
            throw AVPipelineError.invalidOption(name: "quality", value: "\(quality)", reason: "must be above 0 and at most 10")
        }
        // nil: FFmpeg's default for the channel elements (its aacenc picks it when bit_rate is 0).
        let requested = options.quality == nil ? try Self.loweredBitRate(options.bitRate, sampleRate: rate, channels: layout.channelCount) : nil
        let format = AudioFormat(sampleFormat: .fltp, sampleRate: rate, channelLayout: layout)
        encoderInputFormat = format
        let plan = try AACSegmentPlan(options.parallel, constantQuality: options.quality != nil)
        let quality = options.quality
        let first = try Self.openEncoder(codec: codec, format: format, bitRate: requested, quality: quality)
        // What FFmpeg chose (its default, clamped to what AAC-LC carries): a parallel encode's
        // other encoders are set to it.
        let bitRate = quality == nil ? Int(first.pointer.pointee.bit_rate) : 0
        self.bitRate = bitRate
        func makeEncoder() throws -> CodecContext {
            try Self.openEncoder(codec: codec, format: format, bitRate: bitRate, quality: quality)
        }
        sharedFormat = SharedFormat(EncodedAudioFormat(parameters: try CodecParameters(from: first.pointer), timeBase: format.sampleTimeBase))
        let feed = try AudioFeed(upstream: upstream, format: format, encoder: first)
        if let plan {
            core = .parallel(ParallelAACEncoderCore(feed: feed, first: first, plan: plan, jobs: options.parallel.jobs, makeEncoder: makeEncoder))
        } else {
            core = .sequential(EncoderCore(encoder: first, feed: feed))
        }
    }

    /// One open encoder with the stream's settings (a parallel encode opens one per job, or per
    /// segment in constant-quality mode, all alike).
    private static func openEncoder(codec: UnsafePointer<AVCodec>, format: AudioFormat, bitRate: Int?, quality: Double?) throws -> CodecContext {
        let encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(format.sampleRate)
        if let quality {
            // What ffmpeg's -q:a sets: a fixed lambda of quality × FF_QP2LAMBDA.
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = Int32((quality * Double(FF_QP2LAMBDA)).rounded())
        } else {
            context.pointee.bit_rate = Int64(bitRate ?? 0)
        }
        context.pointee.profile = avp_profile_aac_low()
        context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        context.pointee.flags |= avp_codec_flag_global_header()
        try format.channelLayout.withAVChannelLayout { l throws(AVPipelineError) in
            try check(av_channel_layout_copy(&context.pointee.ch_layout, l), "av_channel_layout_copy")
        }
        try encoder.open()
        return encoder
    }

    public func next() async throws -> EncodedAudioPacket<AAC>? {
        try await nextPacket().map { EncodedAudioPacket(packet: $0, format: sharedFormat) }
    }

    /// The next encoded packet, untyped (`AudioEncoder` hands it on as any codec's).
    func nextPacket() async throws -> Packet? {
        switch core {
        case .sequential(let core): return try await core.next()
        case .parallel(let core): return try await core.next()
        }
    }

    /// The stream's format as the packets share it (`AudioEncoder` wraps the same one).
    var packetFormat: SharedFormat<EncodedAudioFormat> { sharedFormat }

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

    /// The most AAC-LC carries: 6144 bits per channel per 1024-frame packet.
    public static func maximumBitRate(sampleRate: Int, channels: Int) -> Int { 6 * sampleRate * channels }

    /// The request, lowered to what AAC-LC carries (FFmpeg's encoder would clamp it too); nil for
    /// FFmpeg's default.
    private static func loweredBitRate(_ requested: Int?, sampleRate: Int, channels: Int) throws -> Int? {
        let maximum = maximumBitRate(sampleRate: sampleRate, channels: channels)
        guard let bitRate = requested else { return nil }
        guard bitRate > 0 else {
            throw AVPipelineError.invalidOption(name: "bitrate", value: "\(bitRate)", reason: "must be positive")
        }
        return Swift.min(bitRate, maximum)
    }
}
