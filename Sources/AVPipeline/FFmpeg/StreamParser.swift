internal import CFFmpeg

/// Owns one `AVCodecParserContext` (and the codec context it reports into): FFmpeg's header-only
/// parser of a codec's bitstream. Fed complete access units, it reads their slice headers — the
/// picture order count (POC), and from the SPS/VPS the VUI frame rate — without decoding.
final class StreamParser {
    private let parser: UnsafeMutablePointer<AVCodecParserContext>
    private let context: UnsafeMutablePointer<AVCodecContext>

    init(codec: AVCodecID) throws(AVPipelineError) {
        guard let parser = av_parser_init(Int32(codec.rawValue)) else {
            throw .unsupportedCodec("FFmpeg has no parser for \(Codec(codec))")
        }
        guard let context = avcodec_alloc_context3(nil) else {
            av_parser_close(parser)
            throw .outOfMemory
        }
        // Packets from a demuxer are whole access units: parse each one as it is, never re-split.
        parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES
        if codec == AV_CODEC_ID_H264 { avp_prepare_h264_parser_context(context) }
        self.parser = parser
        self.context = context
    }

    deinit {
        av_parser_close(parser)
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// Parses one access unit; returns its picture order count.
    func pictureOrderCount(of packet: Packet) -> Int32 {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var outputSize: Int32 = 0
        _ = av_parser_parse2(parser, context, &output, &outputSize, packet.pointer.pointee.data,
                             packet.pointer.pointee.size, avp_nopts_value(), avp_nopts_value(), 0)
        return parser.pointee.output_picture_number
    }

    /// The frame rate the stream's timing info (H.264 VUI, HEVC VPS/VUI) declares, once a parameter
    /// set has been parsed; nil when the stream does not say.
    var declaredFrameRate: Rational? {
        let rate = context.pointee.framerate
        return rate.num > 0 && rate.den > 0 ? Rational(rate) : nil
    }
}
