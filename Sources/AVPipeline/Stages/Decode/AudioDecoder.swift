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
    /// The counters `statistics` reports, spelled `AudioDecoder.Statistics`.
    public typealias Statistics = AudioDecoderStatistics

    /// The loop (`DecoderCore`) with the audio part on top (`AudioDecoderMedium`).
    private let core: DecoderCore<Upstream, AudioDecoderMedium>
    /// The encoded stream decoded, as upstream described it.
    public let inputFormat: EncodedAudioFormat
    /// The format the opened decoder announces (planar float where it picks one only when decoding).
    public let outputFormat: AudioFormat

    /// Opens a decoder for `upstream`'s codec; fails when this FFmpeg has none or it refuses the stream.
    public init(upstream: Upstream) throws {
        core = try DecoderCore(upstream: upstream) { try AudioDecoderMedium(context: $0, format: $1) }
        inputFormat = core.format
        outputFormat = core.medium.outputFormat
    }

    /// The next PCM buffer, or nil at the end of the stream (until a seek).
    public func next() async throws -> PCMBuffer? {
        try await core.next()
    }

    /// What the decoder has done so far.
    public var statistics: Statistics { core.statistics.audio }

    /// The demuxer seek (`SeekMark.generation`) the buffers handed out since belong to; 0 before any.
    var seekGeneration: Int { core.seekGeneration }
}

extension SampleSource {
    /// Decodes this encoded audio stream to PCM.
    public func decodeAudio<C: AudioCodecKind>() throws -> AudioDecoder<Self, C> where Buffer == EncodedAudioPacket<C> {
        try AudioDecoder(upstream: self)
    }
}
