internal import CFFmpeg

/// Encodes PCM with any FFmpeg audio encoder named (`flac`, `pcm_s16be`, `libmp3lame`, `libopus`…):
/// at the input's rate and layout when the encoder takes them, else the nearest it does, in the
/// sample format it takes that is nearest the input's. For AAC use `AACEncoder`, which knows
/// AAC's limits.
public final class AudioEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    public typealias Buffer = EncodedAudioPacket<AnyAudioCodec>

    private let sharedFormat: SharedFormat<EncodedAudioFormat>
    public var outputFormat: EncodedAudioFormat { sharedFormat.value }
    /// The PCM format the encoder consumes after conversion.
    public let encoderInputFormat: AudioFormat
    private let core: EncoderCore<AudioFeed<Upstream>>

    /// `globalHeader`: the codec's setup goes in the container's header rather than in the stream
    /// (what MP4 and Ogg want; `AudioFileWriter` says so for its muxer).
    public init(upstream: Upstream, encoder name: String, bitrate: Int? = nil, globalHeader: Bool = false) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no '\(name)' encoder")
        }
        let input = upstream.outputFormat
        let rate = EncoderCapabilities.sampleRate(for: input.sampleRate, codec: codec)
        let layout = try EncoderCapabilities.layout(for: input.channelLayout, codec: codec, name: name)
        let sampleFormat = Self.nearest(input.sampleFormat, in: EncoderCapabilities.sampleFormats(codec))
        let encoderInputFormat = AudioFormat(sampleFormat: sampleFormat, sampleRate: rate, channelLayout: layout)

        let encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = sampleFormat.avValue
        context.pointee.sample_rate = Int32(rate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        if let bitrate { context.pointee.bit_rate = Int64(bitrate) }
        if globalHeader { context.pointee.flags |= avp_codec_flag_global_header() }
        try layout.withAVChannelLayout { l throws(AVPipelineError) in
            try check(av_channel_layout_copy(&context.pointee.ch_layout, l), "av_channel_layout_copy")
        }
        do {
            try encoder.open()
        } catch {
            throw AVPipelineError.unsupportedCodec("the '\(name)' encoder refused \(encoderInputFormat) (\(error))")
        }
        sharedFormat = SharedFormat(EncodedAudioFormat(parameters: try CodecParameters(from: context), timeBase: encoderInputFormat.sampleTimeBase))
        self.encoderInputFormat = encoderInputFormat
        core = EncoderCore(encoder: encoder, feed: try AudioFeed(upstream: upstream, format: encoderInputFormat, encoder: encoder))
    }

    public func next() async throws -> EncodedAudioPacket<AnyAudioCodec>? {
        try await core.next().map { EncodedAudioPacket(packet: $0, format: sharedFormat) }
    }

    /// `wanted` when supported; else the supported one with as many bytes per sample, planar or
    /// not as wanted; else the widest.
    static func nearest(_ wanted: SampleFormat, in supported: [SampleFormat]) -> SampleFormat {
        if supported.isEmpty || supported.contains(wanted) { return wanted }
        if let same = supported.first(where: { $0.packed == wanted.packed }) { return same }
        if let sameWidth = supported.first(where: { $0.bytesPerSample == wanted.bytesPerSample }) { return sameWidth }
        return supported.max { $0.bytesPerSample < $1.bytesPerSample }!
    }
}
