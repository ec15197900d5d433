internal import CFFmpeg

/// What a `VideoDecoder` has done so far.
public struct VideoDecoderStatistics: Sendable {
    public var packets = 0
    public var frames = 0
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets = 0
    /// Where and why the first packet was skipped, for a one-line report.
    public var firstSkip: String?
}

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
    public typealias Statistics = VideoDecoderStatistics

    /// The stream's declared picture format; each `VideoFrame` carries its own (sizes can change).
    public let outputFormat: VideoFormat
    public let inputFormat: EncodedVideoFormat

    /// The loop (`DecoderCore`) and the picture part of it (`VideoDecoderMedium`).
    private let core: DecoderCore<Upstream, VideoDecoderMedium>

    /// `threads`: 0 lets FFmpeg use every core; 1 decodes on the pulling task only.
    public init(upstream: Upstream, threads: Int = 0) throws {
        let format = upstream.outputFormat
        inputFormat = format
        guard let codec = avcodec_find_decoder(format.codec.avID) else {
            let tag = TrackInfo.fourcc(format.parameters.pointer.pointee.codec_tag)
            let what = format.codec.avID == AV_CODEC_ID_NONE ? "a video codec FFmpeg does not know" + (tag.map { " (tag \($0))" } ?? "")
                : "\(format.codec)"
            throw AVPipelineError.unsupportedCodec("\(what): this FFmpeg build has no decoder for it")
        }
        guard threads >= 0, threads <= 256 else {
            throw AVPipelineError.invalidOption(name: "decoder threads", value: "\(threads)", reason: "must be between 0 (all cores) and 256")
        }
        let decoder = try CodecContext.openDecoder(codec, name: format.codec, parameters: format.parameters, timeBase: format.timeBase) {
            $0.pointee.thread_count = Int32(threads)
            $0.pointee.thread_type = avp_thread_frame_and_slice()
        }
        let medium = try VideoDecoderMedium(context: decoder.pointer.pointee, format: format)
        outputFormat = medium.outputFormat
        core = DecoderCore(upstream: upstream, codec: decoder, codecName: format.codec, medium: medium)
    }

    /// What the decoder has done so far.
    public var statistics: Statistics {
        Statistics(packets: core.packets, frames: core.medium.frames,
                   skippedPackets: core.damaged.skipped, firstSkip: core.damaged.firstSkip)
    }

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
