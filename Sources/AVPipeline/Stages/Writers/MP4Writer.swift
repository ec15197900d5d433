/// Which ISO-BMFF flavour an `MP4Writer` writes.
public enum MP4Brand: String, Sendable {
    /// `.mp4` (libavformat's `mp4` muxer).
    case mp4
    /// `.m4a` audio-only iTunes flavour (libavformat's `ipod` muxer).
    case m4a

    var container: MuxContainer { self == .mp4 ? .mp4 : .m4a }
}

/// Writes one encoded audio track into an MP4/M4A file: the `Muxer` with a single input, so the
/// file is gapless (see `Muxer`). `faststart` puts the index (`moov`) before the media data so
/// players can start before the whole file is read.
public final class MP4Writer<Upstream: SampleSource, C: AudioCodecKind> where Upstream.Buffer == EncodedAudioPacket<C> {
    private let muxer: Muxer

    /// `metadata`: the file's tags (FFmpeg's names: title, artist, album, track, disc, date, genre,
    /// comment…); `coverArt`: the picture for its `covr` tag.
    public init(upstream: Upstream, path: String, brand: MP4Brand = .mp4, faststart: Bool = true,
                overwrite: Bool = false, metadata: [String: String] = [:], coverArt: CoverArt? = nil) throws {
        muxer = try Muxer(path: path, options: .init(container: brand.container, faststart: faststart, overwrite: overwrite,
                                                     metadata: metadata, coverArt: coverArt))
        try muxer.addAudio(upstream)
    }

    /// What the finished file records about priming and padding (AAC), once `run` is done.
    public var gapless: GaplessInfo? { muxer.gapless }

    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        let summary = try await muxer.run(progress: progress)
        return WriteSummary(path: summary.path, packets: summary.tracks[0].packets, bytes: summary.tracks[0].bytes,
                            duration: summary.duration)
    }
}
