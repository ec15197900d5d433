internal import CFFmpeg

/// Describes an encoded audio stream: what a muxer needs to set up a track and what a user wants to
/// see (codec, profile, rate, channels). Shared by every packet of the stream.
public struct EncodedAudioFormat: Sendable, CustomStringConvertible {
    public let codec: Codec
    public let sampleRate: Int
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
        self.parameters = parameters
        self.timeBase = timeBase
        codec = Codec(p.codec_id)
        sampleRate = Int(p.sample_rate)
        channelLayout = ChannelLayout(p.ch_layout)
        bitRate = p.declaredBitRate
        profile = p.profileName
    }

    /// Codec-specific setup bytes (AAC: the AudioSpecificConfig).
    public var extradata: [UInt8] { parameters.extradata }

    public var description: String {
        "\(codec)\(profile.map { " (\($0))" } ?? "") \(sampleRate) Hz \(channelLayout)"
    }
}

/// One encoded audio packet (an AAC access unit, say). `Codec` is a compile-time tag: an
/// `EncodedAudioPacket<AAC>` is known to hold AAC. Wraps a refcounted `AVPacket`.
public final class EncodedAudioPacket<Codec: AudioCodecKind>: SampleBuffer {
    let packet: Packet
    let sharedFormat: SharedFormat<EncodedAudioFormat>
    /// Set on the first packet after a seek (`Demuxer.seek(to:mode:)`).
    public let seekMark: SeekMark?

    init(packet: Packet, format: SharedFormat<EncodedAudioFormat>, seekMark: SeekMark? = nil) {
        self.packet = packet
        sharedFormat = format
        self.seekMark = seekMark
    }

    convenience init(packet: Packet, format: EncodedAudioFormat, seekMark: SeekMark? = nil) {
        self.init(packet: packet, format: SharedFormat(format), seekMark: seekMark)
    }

    public var format: EncodedAudioFormat { sharedFormat.value }
    public var presentationTime: MediaTime? { packet.presentationTime(in: sharedFormat.value.timeBase) }
    public var decodeTime: MediaTime? { packet.decodeTime(in: sharedFormat.value.timeBase) }
    public var duration: MediaTime? { packet.duration(in: sharedFormat.value.timeBase) }
    public var isKeyframe: Bool { packet.isKeyframe }
    public var byteCount: Int { packet.size }

    /// The encoded bytes, valid only during the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try packet.withUnsafeBytes(body)
    }
}

extension EncodedAudioPacket {
    /// The same packet re-tagged with another codec kind (no copy); callers check `accepts` first.
    func retagged<Other: AudioCodecKind>(as _: Other.Type) -> EncodedAudioPacket<Other> {
        EncodedAudioPacket<Other>(packet: packet, format: sharedFormat, seekMark: seekMark)
    }
}

extension EncodedVideoPacket {
    func retagged<Other: VideoCodecKind>(as _: Other.Type) -> EncodedVideoPacket<Other> {
        EncodedVideoPacket<Other>(packet: packet, format: sharedFormat, seekMark: seekMark)
    }
}
