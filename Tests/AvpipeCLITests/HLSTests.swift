import Foundation
import Testing
import TestSupport

/// `avpipe hls` (and `.m3u8` outputs of remux and mux): segments cut at keyframes, byte-identical
/// to ffmpeg's HLS muxing with the same settings, played end to end by ffmpeg and by GStreamer's
/// hlsdemux (an independent HLS client); VOD published only when complete, live with a rolling
/// window; bad requests refused with nothing left behind.
@Suite struct HLSTests {
    /// 12 s of 320x240 at 25 fps with a keyframe every 2 s, and 12 s of AAC.
    static func source(_ folder: TemporaryDirectory) throws -> String {
        try DemuxMedia.movie(folder.file("in.mp4"), seconds: 12, size: "320x240",
                             videoArguments: ["-g", "50", "-keyint_min", "50", "-sc_threshold", "0"])
    }

    static func playlistEntries(_ path: String) throws -> [(duration: Double, uri: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        return lines.indices.compactMap { index in
            guard lines[index].hasPrefix("#EXTINF:"), index + 1 < lines.count else { return nil }
            return (Double(lines[index].dropFirst(8).prefix { $0 != "," }) ?? -1, lines[index + 1])
        }
    }

    @Test(arguments: [false, true])
    func aVODStreamIsWhatFFmpegWritesAndPlaysEverywhere(fmp4: Bool) throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        let playlist = folder.file("site/index.m3u8")
        let run = try avpipe(["hls", input, "--out", playlist, "--segment", "4"] + (fmp4 ? ["--fmp4"] : []))
        #expect(run.status == 0, "\(run.stderrText)")

        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        for tag in ["#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-ENDLIST"] { #expect(text.contains(tag), "\(tag): \(text)") }
        let entries = try Self.playlistEntries(playlist)
        #expect(entries.count == 3, "\(text)")
        #expect(abs(entries.map(\.duration).reduce(0, +) - 12) <= 0.04 + 0.001, "the segments add up to the source: \(entries)")
        for entry in entries {
            #expect(entry.duration <= 4 + 2 + 0.001, "at most the target and one GOP: \(entry)")
            if !fmp4 {
                let first = try Probe.packets(folder.file("site/\(entry.uri)"), stream: "v:0").first
                #expect((first?["flags"] as? String)?.hasPrefix("K") == true, "\(entry.uri) starts with a keyframe")
            }
        }
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.file("site")))
        let expected = fmp4 ? ["index.m3u8", "index-init.mp4", "index0.m4s", "index1.m4s", "index2.m4s"] : ["index.m3u8", "index0.ts", "index1.ts", "index2.ts"]
        #expect(names == Set(expected), "only the stream's files, nothing hidden: \(names)")

        // ffmpeg's HLS muxing with the same settings writes the same bytes.
        try FileManager.default.createDirectory(atPath: folder.file("theirs"), withIntermediateDirectories: false)
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", "-f", "hls", "-hls_time", "4", "-hls_list_size", "0",
                                 "-hls_playlist_type", "vod", "-hls_flags", "independent_segments",
                                 "-hls_segment_filename", folder.file("theirs/index%d.\(fmp4 ? "m4s" : "ts")")]
                                + (fmp4 ? ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "index-init.mp4"] : [])
                                + [folder.file("theirs/index.m3u8")])
        for name in expected {
            #expect(try fileBytes(folder.file("site/\(name)")) == fileBytes(folder.file("theirs/\(name)")), "\(name) differs from ffmpeg's")
        }

        // Played end to end: every picture and (within a frame) every sample.
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", playlist])
        // The HLS demuxer lists the stream under its program as well: the same count twice.
        #expect(frames.stdoutText.split(separator: "\n").first == "300", "\(frames.stdoutText) \(frames.stderrText)")
        let decoded = try ContainerOracles.gstreamerDecodedStreams(playlist, in: folder)
        #expect(decoded.video == 300 * 320 * 240 * 3 / 2, "GStreamer decoded \(decoded.video / (320 * 240 * 3 / 2)) pictures")
        #expect(abs(decoded.audio - 12 * 44_100 * 2) <= 2 * 1024 * 2, "GStreamer decoded \(decoded.audio / 2) samples")
    }

    /// A live stream keeps a rolling window: older segments are deleted, the playlist names the
    /// last ones, and the stream ends with its last segment.
    @Test func aLiveStreamKeepsItsWindow() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        let playlist = folder.file("live.m3u8")
        let run = try avpipe(["hls", input, "--out", playlist, "--segment", "2", "--live", "--window", "3"])
        #expect(run.status == 0, "\(run.stderrText)")
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        let entries = try Self.playlistEntries(playlist)
        #expect(entries.map(\.uri) == ["live3.ts", "live4.ts", "live5.ts"], "\(text)")
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:3") && !text.contains("PLAYLIST-TYPE"), "\(text)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("live") && $0.hasSuffix(".ts") }
        #expect(segments.count <= 4 && !segments.contains("live0.ts"), "old segments are deleted: \(segments)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: folder.path)).contains { $0.hasSuffix(".tmp") })
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", playlist])
        #expect(frames.stdoutText.split(separator: "\n").first == "150", "the window holds 6 s: \(frames.stdoutText)")
    }

    /// remux and mux take an .m3u8 output too.
    @Test func remuxAndMuxWriteHLS() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        let remuxed = try avpipe(["remux", input, folder.file("r.m3u8"), "--segment", "4"])
        #expect(remuxed.status == 0, "\(remuxed.stderrText)")
        #expect(try Self.playlistEntries(folder.file("r.m3u8")).count == 3)
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-an", "-c:v", "copy", "-bsf:v", "h264_mp4toannexb", folder.file("v.h264")])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-vn", "-c:a", "copy", folder.file("a.aac")])
        let muxed = try avpipe(["mux", "--video", folder.file("v.h264"), "--audio", folder.file("a.aac"), "--out", folder.file("m.m3u8"), "--segment", "4"])
        #expect(muxed.status == 0, "\(muxed.stderrText)")
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("m.m3u8"), "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderrText)")
    }

    /// encode writes audio-only HLS (ADTS in TS, or fMP4) and MPEG-TS; ffmpeg and GStreamer decode
    /// the whole tone from the playlist.
    @Test(arguments: [false, true])
    func encodeWritesAudioOnlyHLS(fmp4: Bool) throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 10)
        let playlist = folder.file("a.m3u8")
        let run = try avpipe(["encode", "--in", wav, "--out", playlist, "--segment", "4"] + (fmp4 ? ["--fmp4"] : []))
        #expect(run.status == 0, "\(run.stderrText)")
        let entries = try Self.playlistEntries(playlist)
        #expect(entries.count == 3 && abs(entries.map(\.duration).reduce(0, +) - 10) < 0.05, "\(entries)")
        let samples = try Subprocess.run("ffmpeg", ["-v", "error", "-i", playlist, "-f", "s16le", "-ac", "1", "-"]).stdout.count / 2
        #expect(abs(samples - 441_000) <= 2048, "ffmpeg decodes \(samples) samples")
        let gst = try ContainerOracles.gstreamerDecodedStreams(playlist, video: false, in: folder)
        #expect(abs(gst.audio / 2 - 441_000) <= 2048, "GStreamer decodes \(gst.audio / 2) samples")

        let ts = folder.file("a.ts")
        #expect(try avpipe(["encode", "--in", wav, "--out", ts]).status == 0)
        #expect(try Probe.run(ts).string("codec_name", stream: 0) == "aac")
    }

    @Test func badRequestsAreRefusedAndLeaveNothing() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: folder.file("site/old.m3u8")))
        try Data(count: 100).write(to: URL(fileURLWithPath: folder.file("noise.mp4")))
        let before = FolderSnapshot(folder.path)
        let cases: [([String], Int32, String)] = [
            (["--out", folder.file("site/../x.m3u8")], 64, "'..' is not allowed"),
            (["--out", folder.file("site/x.m3u8"), "--segment", "0"], 64, "segment duration"),
            (["--out", folder.file("site/x.m3u8"), "--segment", "1000000000"], 64, "segment duration"),
            (["--out", folder.file("site/x.m3u8"), "--live", "--window", "0"], 64, "window"),
            (["--out", folder.file("nowhere/x.m3u8")], 73, "does not exist"),
            (["--out", folder.file("site/old.m3u8")], 73, "exists"),
            (["--out", folder.file("site/x.mp4")], 64, "NAME.m3u8"),
        ]
        for (arguments, code, message) in cases {
            let result = try avpipe(["hls", input] + arguments)
            #expect(result.status == code && result.stderrText.contains(message), "\(arguments): \(result.status) \(result.stderrText)")
        }
        let broken = try avpipe(["hls", folder.file("noise.mp4"), "--out", folder.file("site/x.m3u8")])
        #expect(broken.status == 66, "\(broken.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")

        let readOnly = try RestrictedOutput.runWithReadOnlyFolder(folder.file("site"), [Locations.avpipe, "hls", input, "--out", folder.file("site/y.m3u8")])
        #expect(readOnly.status == 73, "\(readOnly.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")
    }

    /// A VOD run killed outright leaves only its hidden staging folder, which the next run in that
    /// folder removes.
    @Test func aKilledVODRunIsCleanedUpByTheNext() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        let running = try RunningProcess(Locations.avpipe, ["hls", input, "--out", folder.file("site/a.m3u8"), "--realtime"], environment: [:])
        usleep(2_000_000)
        kill(running.identifier, SIGKILL)
        _ = running.finish(within: 5)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.file("site"))
        #expect(left.allSatisfy { $0.hasPrefix(".a.m3u8.avpipe-") }, "only the hidden staging folder: \(left)")
        let next = try avpipe(["hls", input, "--out", folder.file("site/b.m3u8"), "--segment", "4"])
        #expect(next.status == 0, "\(next.stderrText)")
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.file("site"))
        #expect(Set(after) == ["b.m3u8", "b0.ts", "b1.ts", "b2.ts"], "\(after)")
    }
}
