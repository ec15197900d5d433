internal import CFFmpeg

/// Encodes PCM with any FFmpeg audio encoder named (`aac`, `flac`, `pcm_s16be`, `libmp3lame`,
/// `libopus`…): at the input's rate and layout when the encoder takes them, else the nearest it
/// does, in the sample format it takes that is nearest the input's. The audio counterpart of
/// `VideoEncoder`, set by the same shape of options (`AudioEncoderOptions`). FFmpeg's native `aac`
/// is encoded as `AACEncoder` does (AAC's limits, constant quality, parallel segments); use
/// `AACEncoder` itself, or `encodeAAC(_:)`, where the packets must be typed as AAC (`writeADTS`).
///
/// ```swift
/// let pcm = try FileCapture(path: "song.wav")
/// let opus = try pcm.encodeAudio(.init(encoder: "libopus", bitRate: 96_000, globalHeader: true))
/// ```
public final class AudioEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    public typealias Buffer = EncodedAudioPacket<AnyAudioCodec>

    private let sharedFormat: SharedFormat<EncodedAudioFormat>
    public var outputFormat: EncodedAudioFormat { sharedFormat.value }
    /// The PCM format the encoder consumes after conversion.
    public let encoderInputFormat: AudioFormat
    /// The options the encoder was opened with.
    public let options: AudioEncoderOptions

    private enum Core {
        case any(EncoderCore<AudioFeed<Upstream>>)
        case aac(AACEncoder<Upstream>)
    }
    private let core: Core

    /// Opens `options.encoder` for `upstream`'s PCM (converted to what it takes). Throws
    /// `.unsupportedCodec` for an encoder this FFmpeg lacks or one that refuses the format,
    /// `.invalidOption` for a setting out of range.
    public init(upstream: Upstream, options: AudioEncoderOptions = .init()) throws {
        self.options = options
        if options.isNativeAAC {
            let aac = try AACEncoder(upstream: upstream, options: options)
            sharedFormat = aac.packetFormat
            encoderInputFormat = aac.encoderInputFormat
            core = .aac(aac)
            return
        }
        let name = options.encoder
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no '\(name)' encoder")
        }
        if options.quality != nil, options.bitRate != nil {
            throw AVPipelineError.invalidOption(name: "quality", value: "\(options.quality!)", reason: "give a bit rate or a quality, not both")
        }
        if options.parallel.jobs > 1 {
            throw AVPipelineError.invalidOption(name: "parallel", value: "\(options.parallel.jobs)", reason: "only the native 'aac' encoder encodes segments in parallel")
        }
        let input = upstream.outputFormat
        let rate = EncoderCapabilities.sampleRate(for: options.sampleRate ?? input.sampleRate, codec: codec)
        let layout = try EncoderCapabilities.layout(for: input.channelLayout, codec: codec, name: name)
        let sampleFormat = Self.nearest(input.sampleFormat, in: EncoderCapabilities.sampleFormats(codec))
        let encoderInputFormat = AudioFormat(sampleFormat: sampleFormat, sampleRate: rate, channelLayout: layout)

        let encoder = try CodecContext(codec: codec)
        let context = encoder.pointer
        context.pointee.sample_fmt = sampleFormat.avValue
        context.pointee.sample_rate = Int32(rate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(rate))
        if let bitRate = options.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        if let quality = options.quality {
            // What ffmpeg's -q:a sets: a fixed lambda of quality × FF_QP2LAMBDA.
            context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
            context.pointee.global_quality = Int32((quality * Double(FF_QP2LAMBDA)).rounded())
        }
        if options.globalHeader { context.pointee.flags |= avp_codec_flag_global_header() }
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
        core = .any(EncoderCore(encoder: encoder, feed: try AudioFeed(upstream: upstream, format: encoderInputFormat, encoder: encoder)))
    }

    public func next() async throws -> EncodedAudioPacket<AnyAudioCodec>? {
        let packet: Packet?
        switch core {
        case .any(let core): packet = try await core.next()
        case .aac(let aac): packet = try await aac.nextPacket()
        }
        return packet.map { EncodedAudioPacket(packet: $0, format: sharedFormat) }
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

extension SampleSource where Buffer == PCMBuffer {
    /// This PCM encoded with `options.encoder` (see `AudioEncoder`; the audio counterpart of `encodeVideo(_:)`).
    public func encodeAudio(_ options: AudioEncoderOptions = .init()) throws -> AudioEncoder<Self> {
        try AudioEncoder(upstream: self, options: options)
    }
}
