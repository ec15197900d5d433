internal import CFFmpeg

/// Writes one picture as a PNG file with libavcodec's png encoder and libavformat's image2 muxer.
/// The picture must already be in a format the encoder takes (`PNGWriter.pixelFormat(for:)`
/// says which, as ffmpeg picks it: rgb24 for 8-bit YUV, rgb48be for deeper, rgba with alpha).
/// The file appears only once complete.
public enum PNGWriter {
    /// The format ffmpeg would convert `source` pictures to for PNG.
    public static func pixelFormat(for source: PixelFormat) throws -> PixelFormat {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let formats = avp_codec_pixel_formats(codec) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no PNG encoder")
        }
        let hasAlpha = av_pix_fmt_desc_get(source.avValue).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
        return PixelFormat(avcodec_find_best_pix_fmt_of_list(formats, source.avValue, hasAlpha ? 1 : 0, nil))
    }

    /// Encodes `picture` to `path`.
    @discardableResult
    public static func write(_ picture: VideoFrame, to path: String, overwrite: Bool = false) throws -> WriteSummary {
        let file = try AtomicOutputFile(path: path, overwrite: overwrite)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg build has no PNG encoder")
        }
        guard try pixelFormat(for: picture.format.pixelFormat) == picture.format.pixelFormat else {
            throw AVPipelineError.unsupportedFormat("a PNG holds \(try pixelFormat(for: picture.format.pixelFormat)), not \(picture.format.pixelFormat): convert the picture first")
        }
        let encoder = try CodecContext(codec: codec)
        let c = encoder.pointer
        c.pointee.width = Int32(picture.format.width)
        c.pointee.height = Int32(picture.format.height)
        c.pointee.pix_fmt = picture.format.pixelFormat.avValue
        c.pointee.time_base = AVRational(num: 1, den: 25)
        try encoder.open()
        let writer = try SingleStreamFileWriter(file: file, muxer: Container.png.muxerName, parameters: try CodecParameters(from: c),
                                                timeBase: Rational(c.pointee.time_base), muxerOptions: ["update": "1"])
        picture.frame.pointer.pointee.pts = 0
        _ = try encoder.send(frame: picture.frame.pointer)
        _ = try encoder.send(frame: nil)
        while true {
            let packet = try Packet()
            guard try encoder.receive(packet: packet) == .got else { break }
            try writer.write(packet)
        }
        return try writer.finish()
    }
}
