internal import CFFmpeg

/// A pixel layout, by FFmpeg's name for it (`yuv420p`, `nv12`, `yuv420p10le`, `rgb24`…).
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let rawValue: Int32

    init(_ value: AVPixelFormat) { rawValue = value.rawValue }

    /// The format FFmpeg names `name`; nil when it has none of that name.
    public init?(name: String) {
        let value = av_get_pix_fmt(name)
        guard value != AV_PIX_FMT_NONE else { return nil }
        self.init(value)
    }

    /// Planar YUV 4:2:0, 8 bits: what most video decodes to.
    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    /// YUV 4:2:0 with interleaved chroma, 8 bits (what many hardware decoders give).
    public static let nv12 = PixelFormat(AV_PIX_FMT_NV12)
    /// Packed RGB, 8 bits per component.
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)

    var avValue: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    /// FFmpeg's name of the format (`yuv420p`…), or `unknown`.
    public var name: String { av_get_pix_fmt_name(avValue).map { String(cString: $0) } ?? "unknown" }
    public var description: String { name }

    /// Bits per component of the first plane (8 for yuv420p, 10 for yuv420p10le).
    public var bitDepth: Int { av_pix_fmt_desc_get(avValue).map { Int($0.pointee.comp.0.depth) } ?? 0 }
    /// Number of planes the pictures are stored in.
    public var planeCount: Int { Int(av_pix_fmt_count_planes(avValue)) }
    /// Whether the colour is stored at half the width and half the height (4:2:0: yuv420p, nv12,
    /// yuv420p10le…), the layout every player and phone decodes.
    public var isChroma420: Bool {
        av_pix_fmt_desc_get(avValue).map { $0.pointee.log2_chroma_w == 1 && $0.pointee.log2_chroma_h == 1 } ?? false
    }
}

/// How decoded pictures look: size, pixel layout, shape of the pixels, colour description, and how
/// the track says to show them (rotation, mirroring). Times are in `timeBase`.
public struct VideoFormat: Hashable, Sendable, CustomStringConvertible {
    /// How the pictures' pixels are laid out.
    public var pixelFormat: PixelFormat
    /// Coded (stored) width, before rotation.
    public var width: Int
    /// Coded (stored) height, before rotation.
    public var height: Int
    /// Shape of one pixel (1:1 for square pixels): the container's, else the picture's; nil when
    /// neither says.
    public var sampleAspectRatio: Rational?
    /// The colour range (`tv` or `pc`), nil when unspecified. The colour fields hold FFmpeg's names.
    public var colorRange: String?
    /// The colour matrix (`bt709`, `bt2020nc`…), nil when unspecified.
    public var colorSpace: String?
    /// The colour primaries (`bt709`, `bt2020`…), nil when unspecified.
    public var colorPrimaries: String?
    /// The transfer characteristic (`bt709`, `smpte2084`…), nil when unspecified.
    public var colorTransfer: String?
    /// Clockwise rotation to apply for display (0, 90, 180, 270), and whether to mirror left-right
    /// after rotating (so a transposing display matrix is 90° and mirrored).
    public var rotation: Int
    /// Whether to mirror left-right after rotating.
    public var isMirrored: Bool
    /// The time base of the pictures' presentation times.
    public var timeBase: Rational
    /// The stream's frame rate, when known (pictures may still be timed irregularly).
    public var frameRate: Rational?
    /// Where chroma samples sit relative to luma (`left`, `center`, `topleft`…; FFmpeg's names),
    /// nil when unspecified. An encoder writes it into the stream (H.264's VUI), as ffmpeg does.
    public var chromaLocation: String? = nil
    /// The container's average rate, when it states one: it differs from `frameRate` when the
    /// pictures are timed irregularly (an encoder then keeps their own clock).
    public var averageFrameRate: Rational? = nil
    /// The layout an encoder makes of these pictures when not told one; nil: their own when the
    /// encoder takes it, else the encoder's nearest (ffmpeg's rule). A screen or camera says
    /// yuv420p: x264's nearest to a screen's RGB is 4:4:4, which many players and every phone refuse.
    var encodingPixelFormat: PixelFormat? = nil

    /// Display width: the coded size rotated (width and height swap at 90° and 270°).
    public var displayWidth: Int { rotation == 90 || rotation == 270 ? height : width }
    /// Display height: the coded size rotated.
    public var displayHeight: Int { rotation == 90 || rotation == 270 ? width : height }

    public var description: String {
        var text = "\(pixelFormat) \(width)x\(height)"
        if let sampleAspectRatio, sampleAspectRatio != Rational(1, 1) { text += " SAR \(sampleAspectRatio.numerator):\(sampleAspectRatio.denominator)" }
        if let colorSpace { text += " \(colorSpace)" }
        if let colorRange { text += "/\(colorRange)" }
        if rotation != 0 { text += ", rotated \(rotation)°" }
        if isMirrored { text += ", mirrored" }
        return text
    }
}

extension VideoFormat {
    /// The picture-level facts of `frame`, with the stream-level ones (`timeBase`, rotation…) of `stream`.
    init(frame f: AVFrame, stream: VideoFormat) {
        self = stream
        pixelFormat = PixelFormat(AVPixelFormat(rawValue: f.format))
        width = Int(f.width)
        height = Int(f.height)
        if stream.sampleAspectRatio == nil, f.sample_aspect_ratio.num > 0, f.sample_aspect_ratio.den > 0 {
            sampleAspectRatio = Rational(f.sample_aspect_ratio)
        }
        (colorRange, colorSpace, colorPrimaries, colorTransfer) =
            Self.colorNames(range: f.color_range, space: f.colorspace, primaries: f.color_primaries, transfer: f.color_trc)
        chromaLocation = f.chroma_location == AVCHROMA_LOC_UNSPECIFIED ? nil : av_chroma_location_name(f.chroma_location).map { String(cString: $0) }
    }

    /// FFmpeg's names for a colour description; nil for what is unspecified.
    static func colorNames(range: AVColorRange, space: AVColorSpace, primaries: AVColorPrimaries,
                           transfer: AVColorTransferCharacteristic) -> (String?, String?, String?, String?) {
        (range == AVCOL_RANGE_UNSPECIFIED ? nil : av_color_range_name(range).map { String(cString: $0) },
         space == AVCOL_SPC_UNSPECIFIED ? nil : av_color_space_name(space).map { String(cString: $0) },
         primaries == AVCOL_PRI_UNSPECIFIED ? nil : av_color_primaries_name(primaries).map { String(cString: $0) },
         transfer == AVCOL_TRC_UNSPECIFIED ? nil : av_color_transfer_name(transfer).map { String(cString: $0) })
    }
}
