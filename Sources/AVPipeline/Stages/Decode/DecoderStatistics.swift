/// What any decoder counts (`AudioDecoderStatistics`, `VideoDecoderStatistics`), for code that
/// reports on either, such as a damaged-packet warning.
public protocol DecoderStatistics: Sendable {
    /// Packets taken from upstream.
    var packets: Int { get }
    /// Packets the decoder rejected as damaged and skipped.
    var skippedPackets: Int { get }
    /// Where and why the first packet was skipped, for a one-line report.
    var firstSkip: String? { get }
}

/// What an `AudioDecoder` has done so far.
///
/// Not generic over the count's type (nor one generic struct for both decoders): a generic
/// struct's metadata is laid out at run time, on first use, and valgrind's memcheck reports that
/// (`swift_initStructMetadata`) as a read of undefined memory in every job that decodes.
public struct AudioDecoderStatistics: DecoderStatistics {
    /// Packets taken from upstream.
    public var packets = 0
    /// Sample frames decoded (samples per channel).
    public var sampleFrames: Int64 = 0
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets = 0
    /// Where and why the first packet was skipped, for a one-line report.
    public var firstSkip: String?
}

/// What a `VideoDecoder` has done so far.
public struct VideoDecoderStatistics: DecoderStatistics {
    /// Packets taken from upstream.
    public var packets = 0
    /// Pictures decoded.
    public var pictures: Int64 = 0
    /// Packets the decoder rejected as damaged and skipped.
    public var skippedPackets = 0
    /// Where and why the first packet was skipped, for a one-line report.
    public var firstSkip: String?
}

/// What `DecoderCore` counts for either kind; the decoders give it its kind's names.
struct DecoderCounts {
    var packets: Int
    /// Sample frames for audio, pictures for video.
    var decoded: Int64
    var skippedPackets: Int
    var firstSkip: String?

    var audio: AudioDecoderStatistics {
        AudioDecoderStatistics(packets: packets, sampleFrames: decoded, skippedPackets: skippedPackets, firstSkip: firstSkip)
    }
    var video: VideoDecoderStatistics {
        VideoDecoderStatistics(packets: packets, pictures: decoded, skippedPackets: skippedPackets, firstSkip: firstSkip)
    }
}
