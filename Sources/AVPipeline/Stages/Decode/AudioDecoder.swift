internal import CFFmpeg

/// What an `AudioDecoder` has done so far.
public struct AudioDecoderStatistics: Sendable {
    public var packets = 0
    /// Decoded sample frames (samples per channel).
    public var frames: Int64 = 0
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets = 0
    /// Where and why the first packet was skipped, for a one-line report.
    public var firstSkip: String?
}

/// Decodes encoded audio packets (AAC, or any codec FFmpeg has a decoder for) to PCM.
///
/// It runs libavcodec's send/receive loop, flushes the decoder's delayed frames at end of stream and
/// stamps every buffer with its presentation time in samples (from the packets' timestamps, counted on
/// where they are missing). A packet the decoder rejects as damaged is skipped and counted in
/// `statistics` (decoding goes on, as players do); only a stream that yields nothing but errors fails.
/// Every buffer has `outputFormat`: should the stream change format midway (HE-AAC signalled late, a
/// new channel configuration), later frames are converted back to it.
public final class AudioDecoder<Upstream: SampleSource, C: AudioCodecKind>: SampleSource
where Upstream.Buffer == EncodedAudioPacket<C> {
    public typealias Buffer = PCMBuffer

    public typealias Statistics = AudioDecoderStatistics

    public let outputFormat: AudioFormat
    public let inputFormat: EncodedAudioFormat

    /// The loop (`DecoderCore`) and the audio part of it (`AudioDecoderMedium`).
    private let core: DecoderCore<Upstream, AudioDecoderMedium>

    /// Opens a decoder for `upstream`'s codec; fails when this FFmpeg has none or it refuses the stream.
    public init(upstream: Upstream) throws {
        let format = upstream.outputFormat
        inputFormat = format
        guard let codec = avcodec_find_decoder(format.codec.avID) else {
            throw AVPipelineError.unsupportedCodec("\(format.codec): this FFmpeg build has no decoder for it")
        }
        let decoder = try CodecContext.openDecoder(codec, name: format.codec, parameters: format.parameters, timeBase: format.timeBase)
        let medium = try AudioDecoderMedium(context: decoder.pointer.pointee, format: format)
        outputFormat = medium.outputFormat
        core = DecoderCore(upstream: upstream, codec: decoder, codecName: format.codec, medium: medium)
    }

    /// What the decoder has done so far.
    public var statistics: Statistics {
        Statistics(packets: core.packets, frames: core.medium.frames,
                   skippedPackets: core.damaged.skipped, firstSkip: core.damaged.firstSkip)
    }

    /// The demuxer seek (`SeekMark.generation`) the buffers handed out since belong to; 0 before any.
    var seekGeneration: Int { core.seekGeneration }

    /// The next PCM buffer, or nil at the end of the stream (until a seek).
    public func next() async throws -> PCMBuffer? {
        try await core.next()
    }
}

extension SampleSource {
    /// Decodes this encoded audio stream to PCM.
    public func decodeAudio<C: AudioCodecKind>() throws -> AudioDecoder<Self, C> where Buffer == EncodedAudioPacket<C> {
        try AudioDecoder(upstream: self)
    }
}
