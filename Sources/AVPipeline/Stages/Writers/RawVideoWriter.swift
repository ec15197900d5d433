/// Writes H.264 or H.265 packets as a raw Annex B elementary stream (`.h264`, `.h265`) with
/// libavformat's `h264`/`hevc` muxers. The packets must already be Annex B (`.annexB()` converts
/// MP4's length-prefixed packets); the file appears only once complete.
public final class RawVideoWriter<Upstream: SampleSource, C: VideoCodecKind> where Upstream.Buffer == EncodedVideoPacket<C> {
    private let upstream: Upstream
    private let writer: SingleStreamFileWriter

    /// Checks that the packets are Annex B and the output can be written, before any packet is pulled.
    public init(upstream: Upstream, path: String, overwrite: Bool = false) throws {
        self.upstream = upstream
        let format = upstream.outputFormat
        guard format.framing == .annexB else {
            throw AVPipelineError.unsupportedFormat("a raw \(format.codec) stream needs Annex B packets; convert them with annexB()")
        }
        guard let muxer = Self.muxer(for: format.codec) else {
            throw AVPipelineError.unsupportedCodec("raw video files hold H.264 or H.265, not \(format.codec)")
        }
        writer = try SingleStreamFileWriter(path: path, muxer: muxer, overwrite: overwrite,
                                            parameters: format.parameters, timeBase: format.timeBase)
    }

    /// The libavformat raw muxer for `codec`, when there is one.
    static func muxer(for codec: Codec) -> String? {
        switch codec {
        case .h264: Container.h264.muxerName
        case .hevc: Container.hevc.muxerName
        default: nil
        }
    }

    /// Pulls every packet from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await drain(upstream, into: writer, progress: progress)
    }
}

extension SampleSource {
    /// Writes this Annex B H.264/H.265 stream to a raw `.h264`/`.h265` file.
    @discardableResult
    public func writeRawVideo<C: VideoCodecKind>(to path: String, overwrite: Bool = false,
                                                 progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary
    where Buffer == EncodedVideoPacket<C> {
        try await RawVideoWriter(upstream: self, path: path, overwrite: overwrite).run(progress: progress)
    }
}
