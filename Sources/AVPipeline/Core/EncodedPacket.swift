/// What every encoded stream's format says: its codec and the time base of its packets' timestamps.
public protocol EncodedStreamFormat: Sendable {
    /// The tag a demuxer gives this medium's packets, whose codec is known only at run time
    /// (`AnyAudioCodec` for audio); `requiring(_:)` narrows it to a `CodecKind` of the same medium.
    associatedtype AnyCodec: CodecKind where AnyCodec.Format == Self
    /// The kind of track such a stream is (`.audio`, `.video`, `.subtitle`).
    static var trackKind: TrackInfo.Kind { get }
    /// The stream's codec, as found at run time.
    var codec: Codec { get }
    /// The time base of the packets' timestamps.
    var timeBase: Rational { get }
}

/// One encoded packet: an AAC access unit, an H.264 access unit, a subtitle cue. `Codec` is a
/// compile-time tag (`EncodedPacket<AAC>` is known to hold AAC) and, through its `Format`, names the
/// medium. Wraps one refcounted `AVPacket`: per packet, one object holding three references.
public final class EncodedPacket<Codec: CodecKind>: SampleBuffer {
    let packet: Packet
    let sharedFormat: SharedFormat<Codec.Format>
    /// Set on the first packet after a seek (`Demuxer.seek(to:mode:)`).
    public let seekMark: SeekMark?

    init(packet: Packet, format: SharedFormat<Codec.Format>, seekMark: SeekMark? = nil) {
        self.packet = packet
        sharedFormat = format
        self.seekMark = seekMark
    }

    convenience init(packet: Packet, format: Codec.Format, seekMark: SeekMark? = nil) {
        self.init(packet: packet, format: SharedFormat(format), seekMark: seekMark)
    }

    /// The stream's format, shared by all its packets.
    public var format: Codec.Format { sharedFormat.value }
    // The time base is read from the box itself: reading it through `format` would copy the whole
    // format through its generic witnesses wherever this class is not specialized.
    /// When the packet is to be presented; nil when the container does not say.
    public var presentationTime: MediaTime? { packet.presentationTime(in: sharedFormat.timeBase) }
    /// When the packet is to be decoded; nil when the container does not say.
    public var decodeTime: MediaTime? { packet.decodeTime(in: sharedFormat.timeBase) }
    /// How long the packet plays; nil when unknown.
    public var duration: MediaTime? { packet.duration(in: sharedFormat.timeBase) }
    /// Whether decoding may start at this packet.
    public var isKeyframe: Bool { packet.isKeyframe }
    /// The size of the encoded bytes.
    public var byteCount: Int { packet.size }

    /// The encoded bytes, valid only during the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try packet.withUnsafeBytes(body)
    }

    /// The same packet re-tagged with another codec kind of its medium (no copy of the bytes);
    /// callers check `Other.accepts` first.
    func retagged<Other: CodecKind>(as _: Other.Type) -> EncodedPacket<Other> where Other.Format == Codec.Format {
        EncodedPacket<Other>(packet: packet, format: sharedFormat, seekMark: seekMark)
    }
}

/// One encoded audio packet (an AAC access unit, say): `EncodedAudioPacket<AAC>` holds AAC.
public typealias EncodedAudioPacket<Codec: AudioCodecKind> = EncodedPacket<Codec>

/// One encoded video packet (an access unit): `EncodedVideoPacket<H264>` holds H.264.
public typealias EncodedVideoPacket<Codec: VideoCodecKind> = EncodedPacket<Codec>

/// One encoded subtitle packet: a cue shown from its presentation time for its duration.
public typealias EncodedSubtitlePacket = EncodedPacket<AnySubtitleCodec>

// Each medium's format, with the tag of its packets as a demuxer gives them and the kind of its tracks.
extension EncodedAudioFormat: EncodedStreamFormat {
    public typealias AnyCodec = AnyAudioCodec
    public static var trackKind: TrackInfo.Kind { .audio }
}

extension EncodedVideoFormat: EncodedStreamFormat {
    public typealias AnyCodec = AnyVideoCodec
    public static var trackKind: TrackInfo.Kind { .video }
}

extension EncodedSubtitleFormat: EncodedStreamFormat {
    public typealias AnyCodec = AnySubtitleCodec
    public static var trackKind: TrackInfo.Kind { .subtitle }
}
