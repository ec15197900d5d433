/// What a decoder has done so far (`AudioDecoderStatistics`, `VideoDecoderStatistics`).
///
/// Not generic over the count's type: a generic struct's metadata is laid out at run time, on first
/// use, and valgrind's memcheck reports that (`swift_initStructMetadata`) as a read of undefined
/// memory in every job that decodes.
public struct DecoderStatistics: Sendable {
    /// Packets taken from upstream.
    public var packets = 0
    /// Decoded frames: sample frames (samples per channel) for audio, pictures for video.
    public var frames: Int64 = 0
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets = 0
    /// Where and why the first packet was skipped, for a one-line report.
    public var firstSkip: String?
}

/// What an `AudioDecoder` has done so far; `frames` counts sample frames (samples per channel).
public typealias AudioDecoderStatistics = DecoderStatistics

/// What a `VideoDecoder` has done so far; `frames` counts pictures.
public typealias VideoDecoderStatistics = DecoderStatistics
