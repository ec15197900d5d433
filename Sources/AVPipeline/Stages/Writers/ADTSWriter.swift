/// Writes AAC packets as a raw `.aac` file: one 7-byte ADTS header per packet (profile, sample-rate
/// index, channel configuration and frame length, all taken from the stream — never hard-coded),
/// by libavformat's `adts` muxer. Accepts AAC only: wiring any other codec does not compile.
public final class ADTSWriter<Upstream: SampleSource> where Upstream.Buffer == EncodedAudioPacket<AAC> {
    private let upstream: Upstream
    private let writer: SingleStreamFileWriter

    /// Prepares the output (a hidden temporary file next to `path`); nothing appears at `path` until
    /// `run()` succeeds. `live` (a recording): written at `path` as packets arrive, each frame on
    /// disk once written, so a killed process leaves every whole frame before it.
    public init(upstream: Upstream, path: String, overwrite: Bool = false, live: Bool = false) throws {
        self.upstream = upstream
        let format = upstream.outputFormat
        writer = try SingleStreamFileWriter(path: path, muxer: Container.adts.muxerName, overwrite: overwrite,
                                            parameters: format.parameters, timeBase: format.timeBase, live: live)
    }

    /// Pulls every packet from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        try await drain(upstream, into: writer, progress: progress)
    }
}
