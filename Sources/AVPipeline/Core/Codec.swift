internal import CFFmpeg

/// A codec as FFmpeg identifies it (`aac`, `h264`, `hevc`, `mp3` …).
public struct Codec: Hashable, Sendable, CustomStringConvertible {
    let rawID: UInt32

    init(_ id: AVCodecID) { rawID = id.rawValue }
    var avID: AVCodecID { AVCodecID(rawValue: rawID) }

    public var name: String { String(cString: avcodec_get_name(avID)) }
    public var description: String { name }

    public static let aac = Codec(AV_CODEC_ID_AAC)
    public static let h264 = Codec(AV_CODEC_ID_H264)
    public static let hevc = Codec(AV_CODEC_ID_HEVC)

    /// Whether this is one of FFmpeg's raw PCM codecs (`pcm_s16le`, `pcm_f32le` …).
    public var isPCM: Bool {
        rawID >= AV_CODEC_ID_PCM_S16LE.rawValue && rawID < AV_CODEC_ID_ADPCM_IMA_QT.rawValue
    }
}

/// A codec known at compile time: encoded buffers carry it as a type parameter so that wiring a
/// stage to the wrong codec does not compile (an ADTS writer takes `EncodedAudioPacket<AAC>` only).
public protocol AudioCodecKind {
    /// Whether a stream of `codec` may be carried as this kind.
    static func accepts(_ codec: Codec) -> Bool
}

/// AAC (any profile).
public enum AAC: AudioCodecKind {
    public static func accepts(_ codec: Codec) -> Bool { codec == .aac }
}

/// Any audio codec, as a demuxer finds it; narrow it with `requiring(_:)` to a typed stream.
public enum AnyAudioCodec: AudioCodecKind {
    public static func accepts(_ codec: Codec) -> Bool { true }
}

/// A video codec known at compile time (see `AudioCodecKind`).
public protocol VideoCodecKind {
    static func accepts(_ codec: Codec) -> Bool
}

public enum H264: VideoCodecKind {
    public static func accepts(_ codec: Codec) -> Bool { codec == .h264 }
}

public enum HEVC: VideoCodecKind {
    public static func accepts(_ codec: Codec) -> Bool { codec == .hevc }
}

/// Any video codec, as a demuxer finds it.
public enum AnyVideoCodec: VideoCodecKind {
    public static func accepts(_ codec: Codec) -> Bool { true }
}
