internal import CFFmpeg

/// Describes a subtitle stream (mov_text, SubRip, ASS, WebVTT…); shared by every packet of it.
public struct EncodedSubtitleFormat: Sendable, CustomStringConvertible {
    public let codec: Codec
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

    public var description: String { "\(codec) subtitles" }
}

/// One encoded subtitle packet: a cue shown from its presentation time for its duration.
public final class EncodedSubtitlePacket: SampleBuffer {
    let packet: Packet
    public let format: EncodedSubtitleFormat

    init(packet: Packet, format: EncodedSubtitleFormat) {
        self.packet = packet
        self.format = format
    }

    public var presentationTime: MediaTime? { packet.presentationTime(in: format.timeBase) }
    public var duration: MediaTime? { packet.duration(in: format.timeBase) }
    public var byteCount: Int { packet.size }

    /// The encoded bytes, valid only during the call.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try packet.withUnsafeBytes(body)
    }
}
