internal import CFFmpeg

/// Describes an encoded video stream; shared by every packet of the stream.
public struct EncodedVideoFormat: Sendable, CustomStringConvertible {
    /// The stream's codec.
    public let codec: Codec
    /// Coded size, as stored (before rotation).
    public let width: Int
    /// Coded height, as stored (before rotation).
    public let height: Int
    /// Codec profile name when FFmpeg knows it (`High` for H.264 High).
    public let profile: String?
    /// Average bit rate in bits per second, when known.
    public let bitRate: Int?
    /// The time base of the packets' timestamps.
    public let timeBase: Rational
    /// Average frame rate when known.
    public let frameRate: Rational?
    /// NAL framing of the packets (meaningful for H.264/H.265).
    public let framing: NALFraming
    /// The track's tags (language, handler name…), carried to a muxer's output.
    public internal(set) var metadata: [String: String] = [:]
    /// The track's display matrix (rotation, mirroring), carried to a muxer's output.
    var displayMatrix: [Int32]?
    /// The container's average rate, which differs from `frameRate` in a stream timed irregularly.
    var averageFrameRate: Rational?
    /// The pixel shape the container states, which wins over the pictures' (as in ffmpeg).
    var sampleAspectRatio: Rational?
    let parameters: CodecParameters

    init(parameters: CodecParameters, timeBase: Rational, frameRate: Rational?, framing: NALFraming) {
        let p = parameters.pointer.pointee
        (self.parameters, self.timeBase, self.frameRate, self.framing) = (parameters, timeBase, frameRate, framing)
        (codec, profile, bitRate) = p.codecSummary
        (width, height) = (Int(p.width), Int(p.height))
    }

    /// Codec-specific setup bytes (H.264: the `avcC` record when length-prefixed).
    public var extradata: [UInt8] { parameters.extradata }

    /// Codec, profile, size and framing, for people to read.
    public var description: String {
        "\(codec.label(profile: profile)) \(width)x\(height) \(framing)"
    }
}
