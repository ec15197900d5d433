/// Finishing a fragmented MP4/M4A recording (written as fragments so that a killed process keeps
/// all but the last one): once it is complete, it is rewritten as a regular file carrying the
/// gapless information (edit list and `iTunSMPB`), atomically; until then it stays fragmented.
public enum FragmentedRecording {
    /// Rewrites the fragmented recording at `path` as a regular `container` file carrying `gapless`,
    /// in place of the fragments once complete.
    public static func finish(path: String, container: Container, gapless: GaplessInfo) async throws {
        let demuxer = try Demuxer(path: path)
        let restored = GaplessRestore(upstream: try demuxer.audioTrack(), gapless: gapless)
        var options = Muxer.Options(container: container)
        options.overwrite = true
        let muxer = try Muxer(path: path, options: options)
        try muxer.addAudio(restored, label: path)
        try await muxer.run()
    }
}
