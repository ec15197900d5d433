internal import CFFmpeg

/// A codec as FFmpeg identifies it (`aac`, `h264`, `hevc`, `mp3` …).
public struct Codec: Hashable, Sendable, CustomStringConvertible {
    let rawID: UInt32

    init(_ id: AVCodecID) { rawID = id.rawValue }
    var avID: AVCodecID { AVCodecID(rawValue: rawID) }

    /// FFmpeg's short name of the codec (`aac`, `h264`, `pcm_s16le`…).
    public var name: String { String(cString: avcodec_get_name(avID)) }
    public var description: String { name }

    /// AAC, any profile.
    public static let aac = Codec(AV_CODEC_ID_AAC)
    /// H.264 / AVC.
    public static let h264 = Codec(AV_CODEC_ID_H264)
    /// H.265 / HEVC.
    public static let hevc = Codec(AV_CODEC_ID_HEVC)
    /// VP9.
    public static let vp9 = Codec(AV_CODEC_ID_VP9)
    /// AV1.
    public static let av1 = Codec(AV_CODEC_ID_AV1)

    /// The codec FFmpeg names `name` (`h264`, `hevc`, `vp9`, `av1`…); nil when it knows none.
    public init?(name: String) {
        guard let descriptor = avcodec_descriptor_get_by_name(name) else { return nil }
        self.init(descriptor.pointee.id)
    }

    /// Whether this is one of FFmpeg's raw PCM codecs (`pcm_s16le`, `pcm_f32le` …).
    public var isPCM: Bool {
        rawID >= AV_CODEC_ID_PCM_S16LE.rawValue && rawID < AV_CODEC_ID_ADPCM_IMA_QT.rawValue
    }
}

/// A codec known at compile time: encoded packets carry it as a type parameter so that wiring a
/// stage to the wrong codec does not compile (an ADTS writer takes `EncodedPacket<AAC>` only). Its
/// `Format` names the medium, so an audio packet cannot reach a video stage either.
public protocol CodecKind {
    /// What describes a stream of this kind: `EncodedAudioFormat`, `EncodedVideoFormat`, `EncodedSubtitleFormat`.
    associatedtype Format: EncodedStreamFormat
    /// Whether a stream of `codec` may be carried as this kind.
    static func accepts(_ codec: Codec) -> Bool
}

/// An audio codec known at compile time (see `CodecKind`).
public protocol AudioCodecKind: CodecKind where Format == EncodedAudioFormat {}

extension AudioCodecKind {
    /// Every audio codec kind's streams are described by `EncodedAudioFormat`.
    public typealias Format = EncodedAudioFormat
}

/// A video codec known at compile time (see `CodecKind`).
public protocol VideoCodecKind: CodecKind where Format == EncodedVideoFormat {}

extension VideoCodecKind {
    /// Every video codec kind's streams are described by `EncodedVideoFormat`.
    public typealias Format = EncodedVideoFormat
}

/// A subtitle codec known at compile time (see `CodecKind`).
public protocol SubtitleCodecKind: CodecKind where Format == EncodedSubtitleFormat {}

extension SubtitleCodecKind {
    /// Every subtitle codec kind's streams are described by `EncodedSubtitleFormat`.
    public typealias Format = EncodedSubtitleFormat
}

/// AAC (any profile).
public enum AAC: AudioCodecKind {
    /// Accepts AAC streams only.
    public static func accepts(_ codec: Codec) -> Bool { codec == .aac }
}

/// Any audio codec, as a demuxer finds it; narrow it with `requiring(_:)` to a typed stream.
public enum AnyAudioCodec: AudioCodecKind {
    /// Accepts every codec.
    public static func accepts(_ codec: Codec) -> Bool { true }
}

/// H.264 (AVC).
public enum H264: VideoCodecKind {
    /// Accepts H.264 streams only.
    public static func accepts(_ codec: Codec) -> Bool { codec == .h264 }
}

/// H.265 (HEVC).
public enum HEVC: VideoCodecKind {
    /// Accepts H.265 streams only.
    public static func accepts(_ codec: Codec) -> Bool { codec == .hevc }
}

/// Any video codec, as a demuxer finds it; narrow it with `requiring(_:)` to a typed stream.
public enum AnyVideoCodec: VideoCodecKind {
    /// Accepts every codec.
    public static func accepts(_ codec: Codec) -> Bool { true }
}

/// Any subtitle codec, as a demuxer finds it.
public enum AnySubtitleCodec: SubtitleCodecKind {
    /// Accepts every codec.
    public static func accepts(_ codec: Codec) -> Bool { true }
}
