import Foundation
import Testing
import TestSupport

/// What `avpipe hls` does with tracks beyond H.264/H.265 and AAC: AV1 and VP9 go into fMP4
/// segments as ffmpeg's hls muxer writes them (the same bytes, the same pictures), TS segments
/// (which would carry them as private data no player reads) refuse them naming `--fmp4`, and a
/// subtitle track is named in the notice rather than dropped silently.
@Suite struct HLSTrackTests {
    /// 2 s of 160x90 at 25 fps, a keyframe every second, in `codec` (encoder and its options).
    static func clip(_ path: String, encoder: [String]) throws -> String {
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=2"] + encoder + ["-g", "25", path])
        return path
    }

    static let codecs: [(name: String, file: String, encoder: [String])] = [
        ("vp9", "vp9.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"]),
        ("av1", "av1.mp4", ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1"]),
    ]

    @Test(arguments: codecs.map(\.name))
    func av1AndVP9GoIntoFMP4SegmentsAsFFmpegWritesThem(_ name: String) throws {
        let codec = try #require(Self.codecs.first { $0.name == name })
        let folder = TemporaryDirectory()
        let input = try Self.clip(folder.file(codec.file), encoder: codec.encoder)
        let run = try avpipe(["hls", input, "--out", folder.file("ours.m3u8"), "--segment", "1", "--fmp4"])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0",
                                 "-hls_playlist_type", "vod", "-hls_flags", "independent_segments", "-hls_segment_type", "fmp4",
                                 "-hls_segment_filename", folder.file("theirs%d.m4s"), "-hls_fmp4_init_filename", "theirs-init.mp4",
                                 folder.file("theirs.m3u8")])
        let ourNames = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("ours") }.sorted()
        #expect(ourNames == ["ours-init.mp4", "ours.m3u8", "ours0.m4s", "ours1.m4s"], "\(ourNames)")
        for suffix in ["-init.mp4", "0.m4s", "1.m4s"] {
            #expect(try fileBytes(folder.file("ours\(suffix)")) == fileBytes(folder.file("theirs\(suffix)")), "ours\(suffix) differs from ffmpeg's")
        }
        #expect(try Probe.run(folder.file("ours.m3u8")).string("codec_name") == name)
        let source = try CopyCodecTagTests.framemd5(input)
        #expect(source.count == 50)
        #expect(try CopyCodecTagTests.framemd5(folder.file("ours.m3u8")) == source, "every picture decodes as the source's")
    }

    @Test(arguments: codecs.map(\.name))
    func tsSegmentsRefuseThemNamingFMP4(_ name: String) throws {
        let codec = try #require(Self.codecs.first { $0.name == name })
        let folder = TemporaryDirectory()
        let input = try Self.clip(folder.file(codec.file), encoder: codec.encoder)
        let before = FolderSnapshot(folder.path)
        let run = try avpipe(["hls", input, "--out", folder.file("ours.m3u8")])
        #expect(run.status == 69 && run.stderrText.contains("video track 0") && run.stderrText.contains("--fmp4"), "\(run.status) \(run.stderrText)")
        let muxed = try avpipe(["mux", "--video", input, "--out", folder.file("muxed.m3u8")])
        #expect(muxed.status == 69 && muxed.stderrText.contains("--fmp4"), "\(muxed.status) \(muxed.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing is written")
    }

    @Test func aSubtitleTrackIsNamed() throws {
        let folder = TemporaryDirectory()
        let film = try RemuxCompletenessTests.film(in: folder, subtitleCodec: "srt", name: "film.mkv")
        let run = try avpipe(["hls", film, "--out", folder.file("film.m3u8")])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("subtitle track 3 (subrip, deu): HLS streams carry audio and video only"), "\(run.stderrText)")
        #expect(try Probe.run(folder.file("film.m3u8")).streams.map { "\($0["codec_type"] ?? "")" } == ["video", "audio", "audio"])
    }
}
