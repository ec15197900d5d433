internal import CFFmpeg

/// Encodes pictures with any FFmpeg video encoder (libx264 by default; libx265, libvpx-vp9,
/// SVT-AV1, hardware ones by name): each picture converted to the size and pixel layout the
/// encoder takes, sent once at its own time, and the encoder's delayed pictures flushed at the
/// end. Packets come out in the encoder's clock (`outputFormat.timeBase`), in decode order.
///
/// ```swift
/// let video = try Demuxer(path: "movie.mp4").videoTrack().decodeVideo()
/// let h264 = try video.encodeVideo(.init(preset: "veryfast", crf: 23))
/// try await h264.writeRawVideo(to: "out.h264")
/// ```
public final class VideoEncoder<Upstream: SampleSource>: SampleSource where Upstream.Buffer == VideoFrame {
    public typealias Buffer = EncodedVideoPacket<AnyVideoCodec>

    private let sharedFormat: SharedFormat<EncodedVideoFormat>
    public var outputFormat: EncodedVideoFormat { sharedFormat.value }
    /// The pictures the encoder takes: the pixel layout and size they are converted to, and its clock.
    public let encoderInputFormat: VideoFormat
    /// What could not be done as asked and was done nearest (an odd size for 4:2:0), for people to read.
    public let notices: [String]
    /// The options the encoder was opened with.
    public let options: VideoEncoderOptions
    private let core: EncoderCore<VideoFeed<Upstream>>
    private let feed: VideoFeed<Upstream>

    /// Opens the encoder for `upstream`'s pictures. Throws `.unsupportedCodec` for an encoder this
    /// FFmpeg lacks, `.invalidOption` for a setting out of range or one the encoder does not know,
    /// and `.deviceUnavailable(.videoEncoder, …)` when a hardware encoder cannot open its device.
    public convenience init(upstream: Upstream, options: VideoEncoderOptions = .init()) throws {
        try self.init(upstream: upstream, options: options, displayMatrix: nil, metadata: [:])
    }

    /// `displayMatrix` and `metadata`: a source track's orientation and tags, carried into the
    /// encoded stream as a copy keeps them.
    init(upstream: Upstream, options: VideoEncoderOptions, displayMatrix: [Int32]?, metadata: [String: String]) throws {
        let setup = try VideoEncoderSetup(source: upstream.outputFormat, options: options, keepsOrientation: displayMatrix != nil)
        let context = setup.encoder.pointer
        let parameters = try CodecParameters(from: context)
        if parameters.pointer.pointee.codec_id == AV_CODEC_ID_HEVC {
            // Apple's players take HEVC in MP4/MOV only as `hvc1` (parameter sets in the header);
            // a container with no such tag drops it (`OutputContext.addStream`).
            parameters.pointer.pointee.codec_tag = UInt32(0x68) | UInt32(0x76) << 8 | UInt32(0x63) << 16 | UInt32(0x31) << 24
        }
        let framing = NALFraming.detect(codec: Codec(parameters.pointer.pointee.codec_id), extradata: parameters.extradata)
        var format = EncodedVideoFormat(parameters: parameters, timeBase: setup.format.timeBase,
                                        frameRate: setup.format.frameRate, framing: framing)
        format.sampleAspectRatio = setup.format.sampleAspectRatio
        format.displayMatrix = displayMatrix
        format.metadata = metadata
        sharedFormat = SharedFormat(format)
        encoderInputFormat = setup.format
        notices = setup.notices
        self.options = options
        feed = VideoFeed(upstream: upstream, target: setup.format, constantRate: options.frameRate != nil,
                         keyframeTimeInterval: options.keyframeTimeInterval)
        core = EncoderCore(encoder: setup.encoder, feed: feed)
    }

    public func next() async throws -> EncodedVideoPacket<AnyVideoCodec>? {
        guard let packet = try await core.next() else { return nil }
        if !fieldOrderStated { stateFieldOrder() }
        // Encoders such as libx264 leave packet durations unset; a container then guesses the
        // last picture's (an MP4 would end one picture early), so each gets its picture's own
        // duration (a variable rate stays variable), else one frame period.
        let p = packet.pointer
        let duration = feed.takeDuration(of: p.pointee.pts, decodeTime: p.pointee.dts)
        if p.pointee.duration <= 0, let duration { p.pointee.duration = duration }
        return EncodedVideoPacket(packet: packet, format: sharedFormat)
    }

    private var fieldOrderStated = false

    /// The stream's field order, from its first picture (a muxer reads it for its header only
    /// after the first packet), as ffmpeg sets its encoder's: both fields coded in one picture,
    /// top field first is "tb" (top coded first, shown first), bottom first "bt"; MJPEG codes the
    /// fields apart ("tt", "bb"). Matroska states it.
    private func stateFieldOrder() {
        guard let order = feed.firstFieldOrder else { return }
        fieldOrderStated = true
        let p = sharedFormat.value.parameters.pointer
        let separateFields = p.pointee.codec_id == AV_CODEC_ID_MJPEG
        p.pointee.field_order = switch AVFieldOrder(rawValue: UInt32(order)) {
        case AV_FIELD_TT: separateFields ? AV_FIELD_TT : AV_FIELD_TB
        case AV_FIELD_BB: separateFields ? AV_FIELD_BB : AV_FIELD_BT
        default: AV_FIELD_PROGRESSIVE
        }
    }

    /// Pictures dropped to keep `options.frameRate` (a later one took their slot before they were shown).
    public var droppedPictures: Int { feed.dropped }
    /// Pictures shown again to keep `options.frameRate` (nothing arrived for their slot).
    public var repeatedPictures: Int { feed.repeated }
}

extension SampleSource where Buffer == VideoFrame {
    /// These pictures encoded (see `VideoEncoder`).
    public func encodeVideo(_ options: VideoEncoderOptions = .init()) throws -> VideoEncoder<Self> {
        try VideoEncoder(upstream: self, options: options)
    }
}
