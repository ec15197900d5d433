internal import CFFmpeg

/// What `VideoDecoder` adds to the decoder loop: pictures are handed on as decoded (refcounted,
/// stamped with their best-effort time, nothing copied or converted); after an exact seek, from the
/// first one at or after the target, the pictures before it skipped where the codec can.
struct VideoDecoderMedium: DecoderMedium {
    /// The stream's declared picture format; each `VideoFrame` carries its own (sizes can change).
    let outputFormat: VideoFormat
    /// Pictures decoded.
    private(set) var frames = 0
    private let packetTimeBase: Rational
    /// After an exact seek: where output starts (in `outputFormat.timeBase`).
    private var exactTarget: Int64?

    /// `context` is the opened decoder of a stream with `format`.
    init(context: AVCodecContext, format: EncodedVideoFormat) throws {
        packetTimeBase = format.timeBase
        outputFormat = try Self.declaredFormat(of: context, input: format)
    }

    /// A picture's time is known only once it comes out.
    var nextFramePosition: MediaTime? { nil }

    /// The stream jumped: in exact mode, whatever comes before the target is dropped.
    mutating func startOver(at mark: SeekMark) {
        exactTarget = mark.mode == .exact ? mark.target.converted(to: outputFormat.timeBase).value : nil
    }

    /// On the way to an exact-seek target, pictures nothing refers to (most B-frames) and that
    /// show before the target would only be decoded to be dropped: the decoder skips them. The
    /// pictures kept are decoded from the same references, so they come out the same.
    func prepare(_ codec: CodecContext, for packet: Packet) {
        var skip = AVDISCARD_DEFAULT
        let pts = packet.pointer.pointee.pts
        if let target = exactTarget, pts != avp_nopts_value(),
           av_rescale_q(pts, packetTimeBase.avValue, outputFormat.timeBase.avValue) < target {
            skip = AVDISCARD_NONREF
        }
        if codec.pointer.pointee.skip_frame != skip { codec.pointer.pointee.skip_frame = skip }
    }

    mutating func output(from frame: Frame) -> VideoFrame? {
        frames += 1
        let f = frame.pointer
        f.pointee.pts = f.pointee.best_effort_timestamp
        return accept(VideoFrame(frame: frame, format: VideoFormat(frame: f.pointee, stream: outputFormat)))
    }

    /// The picture to hand out, if any: after an exact seek, the first one starting at or after
    /// the target (what `ffmpeg -ss T -i` gives).
    private mutating func accept(_ picture: VideoFrame) -> VideoFrame? {
        guard let target = exactTarget, let pts = picture.presentationTime?.value else { return picture }
        if pts < target { return nil }
        exactTarget = nil
        return picture
    }

    /// What the opened decoder announces, with the track's timing and orientation.
    private static func declaredFormat(of context: AVCodecContext, input: EncodedVideoFormat) throws -> VideoFormat {
        guard context.width > 0, context.height > 0 else {
            throw AVPipelineError.unsupportedFormat("\(input.codec) stream declares no picture size")
        }
        let orientation = input.displayMatrix.map { matrix in
            matrix.withUnsafeBufferPointer { TrackInfo.orientation(matrix: $0.baseAddress!) }
        } ?? (rotation: 0, mirrored: false)
        var frame = AVFrame()
        frame.format = context.pix_fmt.rawValue
        frame.width = context.width
        frame.height = context.height
        frame.sample_aspect_ratio = context.sample_aspect_ratio
        frame.color_range = context.color_range
        frame.colorspace = context.colorspace
        frame.color_primaries = context.color_primaries
        frame.color_trc = context.color_trc
        frame.chroma_location = context.chroma_sample_location
        var stream = VideoFormat(pixelFormat: PixelFormat(context.pix_fmt), width: 0, height: 0,
                                 sampleAspectRatio: input.sampleAspectRatio,
                                 colorRange: nil, colorSpace: nil, colorPrimaries: nil, colorTransfer: nil,
                                 rotation: orientation.rotation, isMirrored: orientation.mirrored,
                                 timeBase: input.timeBase, frameRate: input.frameRate)
        stream.averageFrameRate = input.averageFrameRate
        return VideoFormat(frame: frame, stream: stream)
    }
}
