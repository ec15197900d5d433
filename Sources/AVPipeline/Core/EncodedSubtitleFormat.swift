internal import CFFmpeg

/// Describes a subtitle stream (mov_text, SubRip, ASS, WebVTT…); shared by every packet of it.
public struct EncodedSubtitleFormat: Sendable, CustomStringConvertible {
    /// The stream's codec.
    public let codec: Codec
    /// The time base of the cues' timestamps.
    public let timeBase: Rational
    /// The track's tags (language above all), carried to a muxer's output.
    public internal(set) var metadata: [String: String] = [:]
    let parameters: CodecParameters

    init(parameters: CodecParameters, timeBase: Rational) {
        self.parameters = parameters
        self.timeBase = timeBase
        codec = Codec(parameters.codecID)
    }

    /// Text subtitles (as opposed to pictures, like DVD or PGS subtitles).
    public var isText: Bool { avcodec_descriptor_get(parameters.codecID).map { $0.pointee.props & avp_codec_prop_text_sub() != 0 } ?? false }

    /// The codec, for people to read.
    public var description: String { "\(codec) subtitles" }
}
