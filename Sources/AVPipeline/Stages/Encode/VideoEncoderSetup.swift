internal import CFFmpeg

/// Decides what a video encoder is given (pixel format, size, pixel shape, clock) from the source
/// and the options, and opens the encoder with them, as ffmpeg's encoder set-up does.
struct VideoEncoderSetup {
    /// The pictures the encoder takes: converted to this layout and size, timed in `format.timeBase`.
    let format: VideoFormat
    /// Said to the user when the asked size could not be kept (4:2:0 needs even sizes).
    let notices: [String]
    let encoder: CodecContext

    static func hasEncoder(named name: String) -> Bool {
        guard let codec = avcodec_find_encoder_by_name(name) else { return false }
        return codec.pointee.type == AVMEDIA_TYPE_VIDEO
    }

    /// `keepsOrientation`: the stream will carry the source's display matrix, so the pictures are
    /// encoded as stored while `options.width`/`height` still mean the picture as displayed.
    init(source: VideoFormat, options: VideoEncoderOptions, keepsOrientation: Bool = false) throws {
        let name = options.encoder
        guard let codec = avcodec_find_encoder_by_name(name), codec.pointee.type == AVMEDIA_TYPE_VIDEO else {
            let known = avcodec_find_encoder_by_name(name) != nil
            throw AVPipelineError.unsupportedCodec(known ? "'\(name)' is not a video encoder"
                                                         : "this FFmpeg build has no '\(name)' video encoder")
        }
        let dictionary = try options.dictionary()
        var notices: [String] = []
        var format = source
        format.pixelFormat = try Self.pixelFormat(options.pixelFormat ?? source.encodingPixelFormat.flatMap { Self.takes(codec, $0) ? $0 : nil },
                                                  source: source.pixelFormat, codec: codec, name: name)
        if keepsOrientation && (source.rotation == 90 || source.rotation == 270) {
            // Sized as displayed (turned a quarter), then turned back to the stored orientation.
            var shown = source
            (shown.width, shown.height) = (source.height, source.width)
            shown.sampleAspectRatio = source.sampleAspectRatio.map { Rational($0.denominator, $0.numerator) }
            let (w, h, sar) = try Self.size(of: shown, options: options, pixelFormat: format.pixelFormat, notices: &notices)
            (format.width, format.height, format.sampleAspectRatio) = (h, w, sar.map { Rational($0.denominator, $0.numerator) })
        } else {
            (format.width, format.height, format.sampleAspectRatio) = try Self.size(of: source, options: options, pixelFormat: format.pixelFormat,
                                                                                      notices: &notices)
        }
        Self.describeConversion(from: source, to: &format)
        format.frameRate = options.frameRate ?? source.frameRate
        format.timeBase = Self.timeBase(source: source, frameRate: options.frameRate)
        self.format = format
        self.notices = notices

        encoder = try CodecContext(codec: codec)
        let c = encoder.pointer
        c.pointee.width = Int32(format.width)
        c.pointee.height = Int32(format.height)
        c.pointee.pix_fmt = format.pixelFormat.avValue
        c.pointee.time_base = format.timeBase.avValue
        if let rate = format.frameRate { c.pointee.framerate = rate.avValue }
        if let sar = format.sampleAspectRatio { c.pointee.sample_aspect_ratio = sar.avValue }
        Self.describeColor(of: format, on: c)
        if options.globalHeader { c.pointee.flags |= avp_codec_flag_global_header() }
        let encoder = self.encoder
        let (opened, logged) = FFmpegLog.explaining { () throws(AVPipelineError) in try encoder.open(options: dictionary) }
        do {
            try opened.get()
        } catch AVPipelineError.invalidOption(let option, let value, _) {
            throw AVPipelineError.invalidOption(name: option, value: value,
                                                reason: "the '\(name)' encoder has no option '\(option)' (its options: ffmpeg -h encoder=\(name))")
        } catch AVPipelineError.ffmpeg(_, let code, _) where code == averrorEINVAL && codec.pointee.capabilities & avp_codec_cap_hardware() == 0 {
            // A value the option's own type refuses (a number that is not one): FFmpeg's log names
            // the option and the value, its error code does not.
            if let logged, let (option, value) = dictionary.sorted(by: { $0.key < $1.key })
                .first(where: { logged.contains("option \($0.key) to value \($0.value)") }) {
                throw AVPipelineError.invalidOption(name: "encoder option '\(option)'", value: value,
                                                    reason: "the '\(name)' encoder does not take it (its options: ffmpeg -h encoder=\(name))")
            }
            // A value the encoder's own option parser takes but the encoder refuses (x264: an
            // unknown preset, tune or profile) comes back as EINVAL; its message says which.
            let named = ["preset": options.preset, "tune": options.tune, "profile": options.profile].compactMapValues { $0 }
            throw AVPipelineError.invalidOption(name: named.isEmpty ? "encoder settings" : named.keys.sorted().joined(separator: "/"),
                                                value: named.isEmpty ? "\(dictionary)" : named.keys.sorted().map { named[$0]! }.joined(separator: "/"),
                                                reason: "the '\(name)' encoder refused \(named.count > 1 ? "them (its message above says which)" : "it")")
        } catch {
            let hardware = codec.pointee.capabilities & avp_codec_cap_hardware() != 0
            if hardware { throw AVPipelineError.deviceUnavailable(.videoEncoder, reason: "'\(name)' could not open its device (\(error))") }
            throw AVPipelineError.unsupportedCodec("the '\(name)' encoder refused \(format) with these settings (\(error))")
        }
    }

    /// The asked layout (refused when the encoder cannot take it), else the source's when it can,
    /// else the one FFmpeg finds nearest the source's (as ffmpeg's format negotiation does).
    private static func pixelFormat(_ asked: PixelFormat?, source: PixelFormat, codec: UnsafePointer<AVCodec>,
                                    name: String) throws(AVPipelineError) -> PixelFormat {
        let supported = supportedPixelFormats(codec)
        if let asked {
            guard supported.isEmpty || supported.contains(asked.avValue) else {
                throw .invalidOption(name: "pixel format", value: asked.name,
                                     reason: "\(name) takes \(supported.map { PixelFormat($0).name }.joined(separator: ", "))")
            }
            return asked
        }
        if supported.isEmpty || supported.contains(source.avValue) { return source }
        return supported.withUnsafeBufferPointer { list in
            var terminated = Array(list) + [AV_PIX_FMT_NONE]
            return PixelFormat(avcodec_find_best_pix_fmt_of_list(&terminated, source.avValue, 0, nil))
        }
    }

    /// The layouts `codec` takes; empty when it does not say.
    private static func supportedPixelFormats(_ codec: UnsafePointer<AVCodec>) -> [AVPixelFormat] {
        var supported: [AVPixelFormat] = []
        if var list = avp_codec_pixel_formats(codec) {
            while list.pointee != AV_PIX_FMT_NONE { supported.append(list.pointee); list += 1 }
        }
        return supported
    }

    private static func takes(_ codec: UnsafePointer<AVCodec>, _ format: PixelFormat) -> Bool {
        let supported = supportedPixelFormats(codec)
        return supported.isEmpty || supported.contains(format.avValue)
    }

    /// The coded size: the asked one, rounded down to what the layout's chroma subsampling allows
    /// (said in a notice), a missing side from the display aspect rounded to the nearest size it
    /// allows (ffmpeg's `scale=W:-2`); and the pixel shape that keeps the display aspect.
    private static func size(of source: VideoFormat, options: VideoEncoderOptions, pixelFormat: PixelFormat,
                             notices: inout [String]) throws(AVPipelineError) -> (Int, Int, Rational?) {
        for (side, value) in [("width", options.width), ("height", options.height)] {
            if let value, !(1...16384).contains(value) {
                throw .invalidOption(name: side, value: "\(value)", reason: "must be between 1 and 16384 pixels")
            }
        }
        let sar = source.sampleAspectRatio.flatMap { $0.numerator > 0 && $0.denominator > 0 ? $0 : nil } ?? Rational(1, 1)
        // Display width of the stored picture, in square pixels.
        let displayWidth = Double(source.width) * Double(sar.numerator) / Double(sar.denominator)
        let (stepX, stepY) = subsampling(of: pixelFormat)
        var width = options.width ?? source.width, height = options.height ?? source.height
        switch (options.width, options.height) {
        case (let w?, nil): height = Int((Double(w) * Double(source.height) / displayWidth / Double(stepY)).rounded()) * stepY
        case (nil, let h?): width = Int((Double(h) * displayWidth / Double(source.height) / Double(stepX)).rounded()) * stepX
        default: break
        }
        let fitted = (max(stepX, width / stepX * stepX), max(stepY, height / stepY * stepY))
        if fitted != (width, height) {
            notices.append("\(pixelFormat) needs sizes in multiples of \(stepX)×\(stepY): encoding at \(fitted.0)x\(fitted.1) instead of \(width)x\(height)")
        }
        // A stated pixel shape is changed so the new size shows at the source's display aspect; an
        // unstated one stays unstated (both as ffmpeg's scale filter does).
        guard fitted != (source.width, source.height), let stated = source.sampleAspectRatio else {
            return (fitted.0, fitted.1, source.sampleAspectRatio)
        }
        var shape = AVRational()
        av_reduce(&shape.num, &shape.den, Int64(stated.numerator) * Int64(source.width) * Int64(fitted.1),
                  Int64(stated.denominator) * Int64(source.height) * Int64(fitted.0), 1 << 30)
        return (fitted.0, fitted.1, Rational(shape))
    }

    /// How many pixels a chroma sample covers across and down (2×2 for 4:2:0).
    static func subsampling(of format: PixelFormat) -> (Int, Int) {
        guard let descriptor = av_pix_fmt_desc_get(format.avValue) else { return (1, 1) }
        return (1 << Int(descriptor.pointee.log2_chroma_w), 1 << Int(descriptor.pointee.log2_chroma_h))
    }

    /// The encoder's clock. With an output frame rate, one tick a picture. A constant-rate source
    /// whose clock ticks divide its frame period exactly (Y4M, MP4, MPEG-TS) is timed in frame
    /// periods, as ffmpeg times it, so the encoder's timing and rate control see the same numbers as
    /// under ffmpeg. Any other keeps its own clock, so a variable frame rate stays variable and no
    /// picture is moved onto a grid: a source whose average rate differs from its declared one (an
    /// MP4 timed irregularly), one whose ticks do not divide the period (Matroska's milliseconds at
    /// 29.97 fps), and a millisecond clock (Matroska, WebM, FLV), whose frame rate is at most a
    /// default picture duration the rest of the file need not keep.
    static func timeBase(source: VideoFormat, frameRate: Rational?) -> Rational {
        if let frameRate { return Rational(frameRate.denominator, frameRate.numerator) }
        guard let rate = source.frameRate, rate.numerator > 0, rate.denominator > 0,
              source.timeBase != Rational(1, 1000), source.averageFrameRate.map({ same($0, rate) }) ?? true else { return source.timeBase }
        let tb = source.timeBase
        let ticks = Int64(rate.denominator) * Int64(tb.denominator), per = Int64(rate.numerator) * Int64(tb.numerator)
        return per > 0 && ticks % per == 0 ? Rational(rate.denominator, rate.numerator) : source.timeBase
    }

    private static func same(_ a: Rational, _ b: Rational) -> Bool {
        Int64(a.numerator) * Int64(b.denominator) == Int64(b.numerator) * Int64(a.denominator)
    }

    /// Pictures converted (another layout or size) are described as the conversion made them, as
    /// after ffmpeg's scale filter: YUV in limited range (full for the `yuvj` layouts) whatever the
    /// source's range was; RGB turned YUV with BT.601 (libswscale's default) and the matrix left
    /// unstated; an RGB picture's own matrix ("gbr") would tell decoders the planes are G, B, R.
    private static func describeConversion(from source: VideoFormat, to format: inout VideoFormat) {
        guard format.pixelFormat != source.pixelFormat || format.width != source.width || format.height != source.height else { return }
        let isRGB = { (f: PixelFormat) in av_pix_fmt_desc_get(f.avValue).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false }
        if isRGB(source.pixelFormat) != isRGB(format.pixelFormat) { (format.colorSpace, format.chromaLocation) = (nil, nil) }
        format.colorRange = isRGB(format.pixelFormat) ? nil : format.pixelFormat.name.hasPrefix("yuvj") ? "pc" : "tv"
    }

    /// The encoder's pictures' colour description and chroma siting, which it writes into the stream (H.264's VUI).
    private static func describeColor(of format: VideoFormat, on c: UnsafeMutablePointer<AVCodecContext>) {
        if let name = format.colorRange { let v = av_color_range_from_name(name); if v >= 0 { c.pointee.color_range = AVColorRange(rawValue: UInt32(v)) } }
        if let name = format.colorSpace { let v = av_color_space_from_name(name); if v >= 0 { c.pointee.colorspace = AVColorSpace(rawValue: UInt32(v)) } }
        if let name = format.colorPrimaries { let v = av_color_primaries_from_name(name); if v >= 0 { c.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(v)) } }
        if let name = format.chromaLocation { let v = av_chroma_location_from_name(name); if v >= 0 { c.pointee.chroma_sample_location = AVChromaLocation(rawValue: UInt32(v)) } }
        if let name = format.colorTransfer { let v = av_color_transfer_from_name(name); if v >= 0 { c.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(v)) } }
    }
}
