internal import CFFmpeg

/// Describes an encoded audio stream: what a muxer needs to set up a track and what a user wants to
/// see (codec, profile, rate, channels). Shared by every packet of the stream.
public struct EncodedAudioFormat: Sendable, CustomStringConvertible {
    /// The stream's codec.
    public let codec: Codec
    /// Samples per second, per channel.
    public let sampleRate: Int
    /// The channels and their order.
    public let channelLayout: ChannelLayout
    /// Codec profile name when FFmpeg knows it (`LC` for AAC-LC).
    public let profile: String?
    /// Average bit rate in bits per second, when known.
    public let bitRate: Int?
    /// The time base of the packets' timestamps.
    public let timeBase: Rational
    /// The track's tags (language, handler name…), carried to a muxer's output.
    public internal(set) var metadata: [String: String] = [:]
    /// Where the audio ends, when the container says so to the sample (an MP4's edit list or
    /// `iTunSMPB`): the decoder cuts the last packet's padding there.
    public internal(set) var presentationEnd: MediaTime?
    /// Where the track's timeline begins (its first packet's time), when the container says.
    var streamStart: MediaTime?
    let parameters: CodecParameters

    init(parameters: CodecParameters, timeBase: Rational) {
        let p = parameters.pointer.pointee
        (self.parameters, self.timeBase) = (parameters, timeBase)
        (codec, profile, bitRate) = p.codecSummary
        (sampleRate, channelLayout) = (Int(p.sample_rate), ChannelLayout(p.ch_layout))
    }

    /// Codec-specific setup bytes (AAC: the AudioSpecificConfig).
    public var extradata: [UInt8] { parameters.extradata }

    /// Codec, profile, rate and channels, for people to read.
    public var description: String {
        "\(codec.label(profile: profile)) \(sampleRate) Hz \(channelLayout)"
    }
}
