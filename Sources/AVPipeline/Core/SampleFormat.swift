internal import CFFmpeg

/// How one PCM sample is stored, named as FFmpeg names it (`s16`, `fltp`…); the `p` forms are
/// planar (one buffer per channel).
public enum SampleFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Unsigned 8-bit, interleaved.
    case u8
    /// Signed 16-bit, interleaved (what a WAV usually holds).
    case s16
    /// Signed 32-bit, interleaved.
    case s32
    /// Signed 64-bit, interleaved.
    case s64
    /// 32-bit float, interleaved.
    case flt
    /// 64-bit float, interleaved.
    case dbl
    /// Unsigned 8-bit, planar.
    case u8p
    /// Signed 16-bit, planar.
    case s16p
    /// Signed 32-bit, planar.
    case s32p
    /// Signed 64-bit, planar.
    case s64p
    /// 32-bit float, planar (what FFmpeg's AAC encoder and decoder use).
    case fltp
    /// 64-bit float, planar.
    case dblp

    /// Whether each channel is stored in a plane of its own.
    public var isPlanar: Bool { av_sample_fmt_is_planar(avValue) != 0 }
    /// The size of one sample of one channel, in bytes.
    public var bytesPerSample: Int { Int(av_get_bytes_per_sample(avValue)) }
    public var description: String { rawValue }

    /// The interleaved form of this format (itself when it is interleaved).
    public var packed: SampleFormat { SampleFormat(av_get_packed_sample_fmt(avValue))! }
    /// The planar form of this format (itself when it is planar).
    public var planar: SampleFormat { SampleFormat(av_get_planar_sample_fmt(avValue))! }

    var avValue: AVSampleFormat {
        switch self {
        case .u8: AV_SAMPLE_FMT_U8
        case .s16: AV_SAMPLE_FMT_S16
        case .s32: AV_SAMPLE_FMT_S32
        case .s64: AV_SAMPLE_FMT_S64
        case .flt: AV_SAMPLE_FMT_FLT
        case .dbl: AV_SAMPLE_FMT_DBL
        case .u8p: AV_SAMPLE_FMT_U8P
        case .s16p: AV_SAMPLE_FMT_S16P
        case .s32p: AV_SAMPLE_FMT_S32P
        case .s64p: AV_SAMPLE_FMT_S64P
        case .fltp: AV_SAMPLE_FMT_FLTP
        case .dblp: AV_SAMPLE_FMT_DBLP
        }
    }

    init?(_ value: AVSampleFormat) {
        guard let match = SampleFormat.allCases.first(where: { $0.avValue == value }) else { return nil }
        self = match
    }

    init?(rawFFmpegValue value: Int32) { self.init(AVSampleFormat(rawValue: value)) }
}
