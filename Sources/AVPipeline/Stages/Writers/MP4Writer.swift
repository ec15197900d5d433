/// Which ISO-BMFF flavour an `MP4Writer` writes.
public enum MP4Brand: String, Sendable {
    /// `.mp4` (libavformat's `mp4` muxer).
    case mp4
    /// `.m4a` audio-only iTunes flavour (libavformat's `ipod` muxer).
    case m4a

    var muxer: String { self == .mp4 ? "mp4" : "ipod" }
}

/// Writes one encoded audio track into an MP4/M4A file with libavformat's muxer (the muxer writes
/// the AudioSpecificConfig and the priming edit list). `faststart` puts the index (`moov`) before
/// the media data so players can start before the whole file is read.
public final class MP4Writer<Upstream: SampleSource, C: AudioCodecKind> where Upstream.Buffer == EncodedAudioPacket<C> {
    private let upstream: Upstream
    private let writer: SingleStreamFileWriter

    public init(upstream: Upstream, path: String, brand: MP4Brand = .mp4, faststart: Bool = true,
                overwrite: Bool = false) throws {
        self.upstream = upstream
        let format = upstream.outputFormat
        writer = try SingleStreamFileWriter(path: path, muxer: brand.muxer, overwrite: overwrite,
                                            parameters: format.parameters, timeBase: format.timeBase,
                                            muxerOptions: faststart ? ["movflags": "+faststart"] : [:])
    }

    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await drain(upstream, into: writer, progress: progress)
    }
}
