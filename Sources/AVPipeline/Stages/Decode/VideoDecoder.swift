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
    public private(set) var statistics = Statistics()

    private let upstream: Upstream
    private let decoder: CodecContext
    private var pending: Frame?
    private var damaged = DamagedPackets()
    private var upstreamEnded = false
    private var drained = false
    /// After an exact seek: where output starts (in `outputFormat.timeBase`).
    private var exactTarget: Int64?
    /// The demuxer seek (`SeekMark.generation`) the buffers handed out since belong to; 0 before any.
    private(set) var seekGeneration = 0

    /// `threads`: 0 lets FFmpeg use every core; 1 decodes on the pulling task only.
    public init(upstream: Upstream, threads: Int = 0) throws {
        self.upstream = upstream
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
        decoder = try CodecContext(codec: codec)
        let context = decoder.pointer
        try check(avcodec_parameters_to_context(context, format.parameters.pointer), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = format.timeBase.avValue
        context.pointee.thread_count = Int32(threads)
        context.pointee.thread_type = avp_thread_frame_and_slice()
        do {
            try decoder.open()
        } catch {
            throw DecoderRefusal.describe(error, codec: format.codec, parameters: format.parameters)
        }
        outputFormat = try Self.declaredFormat(of: context.pointee, input: format)
    }

    public func next() async throws -> VideoFrame? {
        while true {
            try checkCancellation()
            if !drained {
                let frame = try pending ?? Frame()
                switch try receive(into: frame) {
                case .got:
                    pending = nil
                    if let picture = accept(deliver(frame)) { return picture }
                    continue
                case .drained:
                    drained = true
                    try damaged.verifyAtEnd(decodedAnything: statistics.frames > 0, codec: inputFormat.codec)
                    return nil
                case .needsInput:
                    pending = frame
                }
            }
            if let packet = try await upstream.next() {
                statistics.packets += 1
                if let mark = packet.seekMark { startOver(at: mark) }
                // After the end, only a seek makes the stream go on.
                guard !drained else { return nil }
                try send(packet)
                try checkFailures(at: packet.presentationTime)
            } else if drained {
                return nil
            } else if !upstreamEnded {
                upstreamEnded = true
                _ = try decoder.send(packet: nil)
            }
        }
    }

    // MARK: - Seeking

    /// The stream jumped: drop every picture the decoder holds, and in exact mode whatever comes
    /// before the target.
    private func startOver(at mark: SeekMark) {
        seekGeneration = mark.generation
        avcodec_flush_buffers(decoder.pointer)
        drained = false
        upstreamEnded = false
        pending = nil
        exactTarget = mark.mode == .exact ? mark.target.converted(to: outputFormat.timeBase).value : nil
    }

    /// On the way to an exact-seek target, pictures nothing refers to (most B-frames) and that
    /// show before the target would only be decoded to be dropped: the decoder skips them. The
    /// pictures kept are decoded from the same references, so they come out the same.
    private func skipUnreferencedPictures(before packet: EncodedVideoPacket<C>) {
        var skip = AVDISCARD_DEFAULT
        let pts = packet.packet.pointer.pointee.pts
        if let target = exactTarget, pts != avp_nopts_value(),
           av_rescale_q(pts, inputFormat.timeBase.avValue, outputFormat.timeBase.avValue) < target {
            skip = AVDISCARD_NONREF
        }
        if decoder.pointer.pointee.skip_frame != skip { decoder.pointer.pointee.skip_frame = skip }
    }

    /// The picture to hand out, if any: after an exact seek, the first one starting at or after
    /// the target (what `ffmpeg -ss T -i` gives).
    private func accept(_ picture: VideoFrame) -> VideoFrame? {
        guard let target = exactTarget, let pts = picture.presentationTime?.value else { return picture }
        if pts < target { return nil }
        exactTarget = nil
        return picture
    }

    // MARK: - Send/receive with damaged packets as recoverable errors

    private func send(_ packet: EncodedVideoPacket<C>) throws(AVPipelineError) {
        skipUnreferencedPictures(before: packet)
        do {
            // `.full` cannot happen: every send follows a receive that asked for input.
            _ = try decoder.send(packet: packet.packet.pointer)
        } catch {
            // The decoder consumed (and dropped) the packet; it is not sent again.
            try record(error, at: packet.presentationTime)
        }
    }

    private func receive(into frame: Frame) throws(AVPipelineError) -> CodecContext.ReceiveResult {
        while true {
            do {
                return try decoder.receive(frame: frame)
            } catch {
                try record(error, at: nil)
                try checkFailures(at: nil)
            }
        }
    }

    private func record(_ error: AVPipelineError, at position: MediaTime?) throws(AVPipelineError) {
        try damaged.record(error, at: position)
        statistics.skippedPackets = damaged.skipped
        statistics.firstSkip = damaged.firstSkip
    }

    private func checkFailures(at position: MediaTime?) throws(AVPipelineError) {
        try damaged.check(decodedAnything: statistics.frames > 0, codec: inputFormat.codec, at: position)
    }

    private func deliver(_ frame: Frame) -> VideoFrame {
        damaged.decoded()
        statistics.frames += 1
        let f = frame.pointer
        f.pointee.pts = f.pointee.best_effort_timestamp
        return VideoFrame(frame: frame, format: VideoFormat(frame: f.pointee, stream: outputFormat))
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
        let stream = VideoFormat(pixelFormat: PixelFormat(context.pix_fmt), width: 0, height: 0,
                                 sampleAspectRatio: input.sampleAspectRatio,
                                 colorRange: nil, colorSpace: nil, colorPrimaries: nil, colorTransfer: nil,
                                 rotation: orientation.rotation, isMirrored: orientation.mirrored,
                                 timeBase: input.timeBase, frameRate: input.frameRate)
        return VideoFormat(frame: frame, stream: stream)
    }
}

extension SampleSource {
    /// Decodes this encoded video stream to pictures (`threads` 0: every core).
    public func decodeVideo<C: VideoCodecKind>(threads: Int = 0) throws -> VideoDecoder<Self, C>
    where Buffer == EncodedVideoPacket<C> {
        try VideoDecoder(upstream: self, threads: threads)
    }
}
