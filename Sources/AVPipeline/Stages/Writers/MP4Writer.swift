/// Which ISO-BMFF flavour an `MP4Writer` writes: `.mp4` or `.m4a` (the name the API had before
/// there was one container type).
public typealias MP4Brand = Container

/// Writes one encoded audio track into an MP4/M4A file: the `Muxer` with a single input, so the
/// file is gapless (see `Muxer`). `faststart` puts the index (`moov`) before the media data so
/// players can start before the whole file is read.
public final class MP4Writer<Upstream: SampleSource, C: AudioCodecKind> where Upstream.Buffer == EncodedAudioPacket<C> {
    private let muxer: Muxer

    /// `metadata`: the file's tags (FFmpeg's names: title, artist, album, track, disc, date, genre,
    /// comment…); `coverArt`: the picture for its `covr` tag.
    public init(upstream: Upstream, path: String, brand: MP4Brand = .mp4, faststart: Bool = true,
                overwrite: Bool = false, metadata: [String: String] = [:], coverArt: CoverArt? = nil) throws {
        guard brand == .mp4 || brand == .m4a else {
            throw AVPipelineError.unsupportedFormat("an MP4Writer writes .mp4 or .m4a, not \(brand.rawValue)")
        }
        var options = Muxer.Options(container: brand)
        options.faststart = faststart
        options.overwrite = overwrite
        options.metadata = metadata
        options.coverArt = coverArt
        muxer = try Muxer(path: path, options: options)
        try muxer.addAudio(upstream)
    }

    /// What the finished file records about priming and padding (AAC), once `run` is done.
    public var gapless: GaplessInfo? { muxer.gapless }

    /// Pulls every packet from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        let summary = try await muxer.run(progress: progress)
        return WriteSummary(path: summary.path, packets: summary.tracks[0].packets, bytes: summary.tracks[0].bytes,
                            duration: summary.duration)
    }
}
