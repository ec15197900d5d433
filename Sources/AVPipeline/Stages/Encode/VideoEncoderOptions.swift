/// What `VideoEncoder` is set to. Every field left nil is the encoder's own default, as with the
/// ffmpeg CLI (libx264: preset medium, crf 23, a keyframe at least every 250 pictures).
///
/// The named settings reach the encoder the way ffmpeg passes them (its options dictionary), so
/// one the encoder does not know is an `AVPipelineError.invalidOption` naming it, never ignored.
public struct VideoEncoderOptions: Sendable, Equatable {
    /// The FFmpeg encoder by name: `libx264` (the default), `libx265`, `libvpx-vp9`, `libsvtav1`,
    /// `libaom-av1`, a hardware one (`h264_vaapi`, `h264_nvenc`)… `encoderName(for:)` picks one for a codec.
    public var encoder: String
    /// Speed/size trade-off (x264/x265: `ultrafast` … `veryslow`).
    public var preset: String?
    /// Tuning for a kind of content or use (x264: `film`, `animation`, `zerolatency`…).
    public var tune: String?
    /// Codec profile (`baseline`, `main`, `high`…).
    public var profile: String?
    /// Constant quality (x264/x265: 0–51, lower is better; 23 by default).
    public var crf: Double?
    /// Average bit rate in bits per second.
    public var bitRate: Int?
    /// Largest bit rate the decoder's buffer may see (VBV), bits per second; needs `bufferSize`.
    public var maxRate: Int?
    /// The decoder's buffer (VBV) in bits.
    public var bufferSize: Int?
    /// Keyframe spacing counted in pictures: at most this many from one keyframe to the next
    /// (ffmpeg's `-g`). `keyframeTimeInterval` is the spacing counted in time; both may be set.
    public var keyframePictureInterval: Int?
    /// Most B-frames in a row (0: none, which a live viewer's decoder likes).
    public var bFrames: Int?
    /// Encoder threads; nil or 0 lets the encoder choose. With one thread x264's output is the same
    /// from run to run (and the same as `ffmpeg -threads 1`).
    public var threads: Int?
    /// The pixel layout to encode; nil: the source's when the encoder takes it, else the encoder's
    /// nearest; for a screen or camera (`VideoCapture`), yuv420p, which every player decodes.
    public var pixelFormat: PixelFormat?
    /// Output width of the picture as displayed (a rotated track's turned picture); with `height` nil
    /// the height follows the display aspect (as ffmpeg's `scale=W:-2` after its autorotate).
    public var width: Int?
    /// Output height; see `width`.
    public var height: Int?
    /// A constant output frame rate: pictures are dropped or repeated to it (ffmpeg's `-r`). nil keeps
    /// each picture once at its own time, so a variable frame rate stays variable.
    public var frameRate: Rational?
    /// Keyframe spacing counted in time: a keyframe at the first picture at or after every multiple
    /// of this (HLS segments start there; ffmpeg's `-force_key_frames`). See `keyframePictureInterval`.
    public var keyframeTimeInterval: MediaTime?
    /// Any other encoder option, `key` → `value` (`x264-params`, `rc-lookahead`, `aq-mode`…).
    public var encoderOptions: [String: String]
    /// The codec's set-up goes in the container's header (MP4, MKV, FLV want it) rather than before
    /// each keyframe in the stream (raw `.h264`, MPEG-TS).
    public var globalHeader: Bool

    /// Settings as the properties say; the defaults are ffmpeg's (libx264 with its own defaults).
    public init(encoder: String = "libx264", preset: String? = nil, tune: String? = nil, profile: String? = nil,
                crf: Double? = nil, bitRate: Int? = nil, maxRate: Int? = nil, bufferSize: Int? = nil,
                keyframePictureInterval: Int? = nil, bFrames: Int? = nil, threads: Int? = nil, pixelFormat: PixelFormat? = nil,
                width: Int? = nil, height: Int? = nil, frameRate: Rational? = nil, keyframeTimeInterval: MediaTime? = nil,
                encoderOptions: [String: String] = [:], globalHeader: Bool = false) {
        self.encoder = encoder
        self.preset = preset
        self.tune = tune
        self.profile = profile
        self.crf = crf
        self.bitRate = bitRate
        self.maxRate = maxRate
        self.bufferSize = bufferSize
        self.keyframePictureInterval = keyframePictureInterval
        self.bFrames = bFrames
        self.threads = threads
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.keyframeTimeInterval = keyframeTimeInterval
        self.encoderOptions = encoderOptions
        self.globalHeader = globalHeader
    }

    /// The settings as FFmpeg option names and values (what `ffmpeg -c:v … -crf 23 -g 50` sets),
    /// the raw `encoderOptions` last so they win. Throws `.invalidOption` for a value out of range.
    func dictionary() throws(AVPipelineError) -> [String: String] {
        var options: [String: String] = [:]
        try Self.checkRange("crf", crf, 0...63)
        try Self.checkRange("bit rate", bitRate, 1...2_000_000_000)
        try Self.checkRange("maxrate", maxRate, 1...2_000_000_000)
        try Self.checkRange("bufsize", bufferSize, 1...2_000_000_000)
        try Self.checkRange("keyframe interval (gop)", keyframePictureInterval, 1...100_000)
        try Self.checkRange("B-frames", bFrames, 0...16)
        try Self.checkRange("threads", threads, 0...256)
        if maxRate != nil && bufferSize == nil {
            throw .invalidOption(name: "maxrate", value: "\(maxRate!)", reason: "a maximum rate needs a buffer size (bufsize) to be kept")
        }
        options["preset"] = preset
        options["tune"] = tune
        options["profile"] = profile
        options["crf"] = crf.map { String($0) }
        options["b"] = bitRate.map(String.init)
        options["maxrate"] = maxRate.map(String.init)
        options["bufsize"] = bufferSize.map(String.init)
        options["g"] = keyframePictureInterval.map(String.init)
        options["bf"] = bFrames.map(String.init)
        options["threads"] = threads.map(String.init)
        var merged = options.merging(encoderOptions) { $1 }
        if encoder == "libx265" { merged["x265-params"] = Self.x265Parameters(merged["x265-params"]) }
        return merged
    }

    /// x265 writes its log to stderr itself, not through FFmpeg's log (x264's goes through it), so
    /// at FFmpeg's default level it prints its whole configuration and a summary for every encode.
    /// Its level follows FFmpeg's instead, unless the caller's `x265-params` set one.
    static func x265Parameters(_ given: String?) -> String? {
        if let given, given.contains("log-level") { return given }
        let level = FFmpegLog.printLevel
        let x265Level = level < FFmpegLog.Level.warning.rawValue ? "error" : level < FFmpegLog.Level.info.rawValue ? "warning" : nil
        guard let x265Level else { return given }
        return [given, "log-level=\(x265Level)"].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
    }

    private static func checkRange<T: Numeric & Comparable>(_ name: String, _ value: T?, _ range: ClosedRange<T>) throws(AVPipelineError) {
        guard let value, !range.contains(value) else { return }
        throw .invalidOption(name: name, value: "\(value)", reason: "must be between \(range.lowerBound) and \(range.upperBound)")
    }

    /// The encoder ffmpeg picks for `codec` (libx264 for H.264, libx265 for H.265, libvpx-vp9 for
    /// VP9, SVT-AV1 or else libaom for AV1), of those this FFmpeg has; nil when it has none.
    public static func encoderName(for codec: Codec) -> String? {
        let candidates: [String] = switch codec {
        case .h264: ["libx264", "h264"]
        case .hevc: ["libx265", "hevc"]
        case .vp9: ["libvpx-vp9"]
        case .av1: ["libsvtav1", "libaom-av1", "librav1e"]
        default: [codec.name]
        }
        return candidates.first { VideoEncoderSetup.hasEncoder(named: $0) }
    }
}
