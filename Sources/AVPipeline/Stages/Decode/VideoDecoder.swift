internal import CFFmpeg

/// Decodes encoded video packets (H.264, HEVC, VP9, AV1, MPEG-4…: whatever the system's libavcodec
/// decodes) to pictures.
///
/// Decoding is threaded on every core (frame and slice threads, `thread_count = 0`), as
/// `ffmpeg -threads 0` does. The decoder's delayed pictures (B-frame reordering, frame threads) all
/// come out at end of stream. A packet the decoder rejects is skipped and counted in `statistics`
/// (pictures continue after it, as players do); only a stream that yields nothing but errors fails.
/// Pictures are handed on as decoded, refcounted: nothing is copied or converted here.
public final class VideoDecoder<Upstream: SampleSource, C: VideoCodecKind>: SampleSource
where Upstream.Buffer == EncodedVideoPacket<C> {
    public typealias Buffer = VideoFrame
    /// The counters `statistics` reports, spelled `VideoDecoder.Statistics`.
    public typealias Statistics = VideoDecoderStatistics

    /// The stream's declared picture format; each `VideoFrame` carries its own (sizes can change).
    public let outputFormat: VideoFormat
    /// The encoded stream decoded, as upstream described it.
    public let inputFormat: EncodedVideoFormat

    /// The loop (`DecoderCore`) with the picture part on top (`VideoDecoderMedium`).
    private let core: DecoderCore<Upstream, VideoDecoderMedium>

    /// `threads`: 0 lets FFmpeg use every core; 1 decodes on the pulling task only.
    public init(upstream: Upstream, threads: Int = 0) throws {
        core = try DecoderCore(upstream: upstream, configure: { context in
            guard threads >= 0, threads <= 256 else {
                throw AVPipelineError.invalidOption(name: "decoder threads", value: "\(threads)", reason: "must be between 0 (all cores) and 256")
            }
            context.pointee.thread_count = Int32(threads)
            context.pointee.thread_type = avp_thread_frame_and_slice()
        }, medium: { try VideoDecoderMedium(context: $0, format: $1) })
        inputFormat = core.format
        outputFormat = core.medium.outputFormat
    }

    /// What the decoder has done so far.
    public var statistics: Statistics { core.statistics.video }

    /// The demuxer seek (`SeekMark.generation`) the pictures handed out since belong to; 0 before any.
    var seekGeneration: Int { core.seekGeneration }

    /// The next picture, or nil at the end of the stream (until a seek).
    public func next() async throws -> VideoFrame? {
        try await core.next()
    }
}

extension SampleSource {
    /// Decodes this encoded video stream to pictures (`threads` 0: every core).
    public func decodeVideo<C: VideoCodecKind>(threads: Int = 0) throws -> VideoDecoder<Self, C>
    where Buffer == EncodedVideoPacket<C> {
        try VideoDecoder(upstream: self, threads: threads)
    }
}
