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

    /// Waits (polling, at most `polls` × 50 ms) until `playlist` lists `count` segments while
    /// `process` runs; returns how many it lists.
    static func waitUntilListed(_ playlist: String, count: Int, by process: RunningProcess, polls: Int = 600) -> Int {
        var listed = 0
        for _ in 0..<polls where listed < count && process.isRunning {
            usleep(50_000)
            listed = (try? playlistEntries(playlist).count) ?? 0
        }
        return listed
    }

    static func playlistEntries(_ path: String) throws -> [(duration: Double, uri: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        return lines.indices.compactMap { index in
            guard lines[index].hasPrefix("#EXTINF:"), index + 1 < lines.count else { return nil }
            return (Double(lines[index].dropFirst(8).prefix { $0 != "," }) ?? -1, lines[index + 1])
        }
    }

    /// A segment as ffprobe reads it (an fMP4 one behind its init segment, as a player joins
    /// them): whether its first video packet is a keyframe, and how long its pictures last (the
    /// first one's presentation to the end of the last), measured rather than taken from #EXTINF.
    static func measure(_ segment: String, initSegment: String?, in folder: TemporaryDirectory) throws -> (keyframeFirst: Bool, duration: Double) {
        var path = segment
        if let initSegment {
            path = folder.file("joined-\(UUID().uuidString).mp4")
            try Data(try fileBytes(initSegment) + fileBytes(segment)).write(to: URL(fileURLWithPath: path))
        }
        let packets = try Probe.packets(path, stream: "v:0")
        let spans = packets.compactMap { packet -> (start: Double, end: Double)? in
            guard let pts = (packet["pts_time"] as? String).flatMap(Double.init),
                  let duration = (packet["duration_time"] as? String).flatMap(Double.init) else { return nil }
            return (pts, pts + duration)
        }
        guard spans.count == packets.count, let start = spans.map(\.start).min(), let end = spans.map(\.end).max() else {
            throw TestFailure("\(segment): pictures without times: \(packets.prefix(3))")
        }
        return ((packets.first?["flags"] as? String)?.hasPrefix("K") == true, end - start)
    }

    /// Mono samples ffmpeg decodes from a file or playlist.
    static func decodedSamples(_ path: String) throws -> Int {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-vn", "-f", "s16le", "-ac", "1", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        return result.stdout.count / 2
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
        // Each segment measured by ffprobe: it starts with a keyframe and lasts at most the target
        // and one GOP (2 s); together they last as long as the source (±1 frame).
        let initSegment = fmp4 ? folder.file("site/index-init.mp4") : nil
        var total = 0.0
        for entry in entries {
            let measured = try Self.measure(folder.file("site/\(entry.uri)"), initSegment: initSegment, in: folder)
            #expect(measured.keyframeFirst, "\(entry.uri) starts with a keyframe")
            #expect(measured.duration <= 4 + 2 + 0.001, "\(entry.uri): at most the target and one GOP: \(measured.duration)")
            total += measured.duration
        }
        let sourceDuration = try #require(try Probe.run(input).duration)
        #expect(abs(total - sourceDuration) <= 0.04 + 0.001, "the segments add up to the source: \(total) vs \(sourceDuration)")
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
        // ffmpeg decodes the source's samples and, exactly, the AAC priming its MP4 edit list
        // hides: neither TS nor these fMP4 segments (ffmpeg's own, byte for byte) carry one.
        let priming = -((try Probe.packets(input, stream: "a:0").first?["pts"] as? NSNumber)?.intValue ?? 1)
        #expect(priming > 0, "the source's audio starts with priming")
        let sourceSamples = try Self.decodedSamples(input), streamSamples = try Self.decodedSamples(playlist)
        #expect(streamSamples == sourceSamples + priming, "\(streamSamples) samples vs the source's \(sourceSamples) + \(priming)")
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

    /// A live stream stopped by SIGINT: exit 130, and what it published is a valid stream that
    /// ends with its last complete segment — every listed segment there and decodable, no
    /// temporary file left.
    @Test func aStoppedLiveStreamIsComplete() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("live"), withIntermediateDirectories: false)
        let playlist = folder.file("live/l.m3u8")
        let running = try RunningProcess(Locations.avpipe, ["hls", input, "--out", playlist, "--live", "--realtime",
                                                            "--segment", "1", "--window", "3"], environment: [:])
        let listed = Self.waitUntilListed(playlist, count: 3, by: running, polls: 400)
        try #require(listed >= 3 && running.isRunning, "the stream never got under way")
        kill(running.identifier, SIGINT)
        let result = try #require(running.finish(within: 30), "still running 30 s after SIGINT")
        #expect(result.status == 130 && !result.diedOfSignal, "\(result.status) \(result.stderrText)")
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.split(separator: "\n").last == "#EXT-X-ENDLIST", "the playlist ends: \(text)")
        let entries = try Self.playlistEntries(playlist)
        #expect(entries.count >= 2, "\(text)")
        for entry in entries {
            let segment = folder.file("live/\(entry.uri)")
            let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", segment, "-f", "null", "-"])
            #expect(fileSize(segment) > 0 && decode.status == 0, "\(entry.uri): \(decode.stderrText)")
            #expect(try Self.measure(segment, initSegment: nil, in: folder).keyframeFirst, "\(entry.uri) starts with a keyframe")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("live"))
        #expect(!names.contains { $0.hasSuffix(".tmp") || $0.hasPrefix(".") }, "no temporary file left: \(names)")
        let whole = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", playlist, "-f", "null", "-"])
        #expect(whole.status == 0, "the playlist plays: \(whole.stderrText)")
    }

    /// The hls muxer's segment names are a template without an escape, and players read them as
    /// URIs: a '%' in the playlist's name, or a placeholder in its folder, is refused before
    /// anything is written; any other '%' in the folder works. So are '#' and '?' (a fragment and
    /// a query in a URI: served over HTTP, ffmpeg fetches segment "a#b0.ts" as "a" and fails).
    @Test func aPercentSignIsRefusedWhereItCannotBeWritten() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        for name in ["a%d", "b%v", "50%"] { try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: false) }
        let before = FolderSnapshot(folder.path)
        for playlist in ["a%d/100%.m3u8", "a%d/p.m3u8", "b%v/p.m3u8", "50%/100%.m3u8"] {
            let run = try avpipe(["hls", input, "--out", folder.file(playlist)])
            #expect(run.status == 64 && (run.stderrText.contains("'%'") || run.stderrText.contains("placeholders")), "\(playlist): \(run.status) \(run.stderrText)")
        }
        for playlist in ["a#b.m3u8", "c?d.m3u8", "line\nbreak.m3u8"] {
            let run = try avpipe(["hls", input, "--out", folder.file(playlist)])
            #expect(run.status == 64 && run.stderrText.contains("players read their names as URIs"), "\(playlist): \(run.status) \(run.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")
        let run = try avpipe(["hls", input, "--out", folder.file("50%/p.m3u8"), "--segment", "4"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.file("50%"))) == ["p.m3u8", "p0.ts", "p1.ts", "p2.ts"])
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", folder.file("50%/p.m3u8")])
        #expect(frames.stdoutText.split(separator: "\n").first == "300", "\(frames.stdoutText) \(frames.stderrText)")
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

    }

    /// encode into MPEG-TS: the packets, at the times, of ffmpeg's `-c copy -f mpegts` of the same
    /// AAC (encode's ADTS output), and GStreamer's tsdemux decodes the whole tone.
    @Test func encodeWritesATransportStreamAsFFmpegDoes() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 3)
        let ts = folder.file("a.ts"), adts = folder.file("a.aac"), theirs = folder.file("ffmpeg.ts")
        // At 96 kb/s: at the default (128 kb/s for stereo, as ffmpeg's) ffmpeg's copy of the ADTS,
        // which has no times of its own, re-times one packet by a 90 kHz tick. The default is
        // checked against ffmpeg's own encode to TS, byte for byte.
        #expect(try avpipe(["encode", "--in", wav, "--out", ts, "--bitrate", "96k"]).status == 0)
        #expect(try avpipe(["encode", "--in", wav, "--out", adts, "--bitrate", "96k"]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", adts, "-c", "copy", "-f", "mpegts", theirs])
        let defaultTS = folder.file("default.ts"), ffmpegDefault = folder.file("ffmpeg-default.ts")
        #expect(try avpipe(["encode", "--in", wav, "--out", defaultTS]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", ffmpegDefault])
        #expect(try fileBytes(defaultTS) == fileBytes(ffmpegDefault), "the default encode to TS is ffmpeg's")
        let ours = try Probe.packetHashes(ts, stream: "a:0", entries: "pts,dts")
        #expect(try !ours.isEmpty && ours == Probe.packetHashes(theirs, stream: "a:0", entries: "pts,dts"), "the same packets at the same times")
        let decoded = try ContainerOracles.gstreamerDecodedStreams(ts, video: false, in: folder)
        #expect(abs(decoded.audio / 2 - 3 * 44_100) <= 2048, "GStreamer decodes \(decoded.audio / 2) samples")
    }

    /// The README's `hls in.mp4 --out site/index.m3u8` in a fresh folder makes `site`, and a
    /// playlist path through '..' writes what the absolute path to the same folder writes.
    @Test func theStreamsFolderIsMadeAndMayBeReachedThroughDotDot() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2, size: "160x90")
        try FileManager.default.createDirectory(atPath: folder.file("sub"), withIntermediateDirectories: false)
        let made = try avpipe(["hls", input, "--out", folder.file("site/index.m3u8")])
        #expect(made.status == 0, "\(made.stderrText)")
        let relative = try Subprocess.run("sh", ["-c", "cd '\(folder.file("sub"))' && '\(Locations.avpipe)' hls ../in.mp4 --out ../out/index.m3u8"])
        #expect(relative.status == 0, "\(relative.stderrText)")
        let site = FolderSnapshot(folder.file("site")), out = FolderSnapshot(folder.file("out"))
        #expect(site.names.contains("index.m3u8") && site.names.contains("index0.ts") && site == out, "\(site) / \(out)")
    }

    @Test func badRequestsAreRefusedAndLeaveNothing() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: folder.file("site/old.m3u8")))
        try Data(count: 100).write(to: URL(fileURLWithPath: folder.file("noise.mp4")))
        let before = FolderSnapshot(folder.path)
        let cases: [([String], Int32, String)] = [
            (["--out", folder.file("site/x.m3u8"), "--segment", "0"], 64, "segment duration"),
            (["--out", folder.file("site/x.m3u8"), "--segment", "1000000000"], 64, "segment duration"),
            (["--out", folder.file("site/x.m3u8"), "--live", "--window", "0"], 64, "window"),
            (["--out", folder.file("nowhere/deeper/x.m3u8")], 73, "does not exist"),  // only the last level is made
            (["--out", folder.file("site/old.m3u8")], 73, "exists"),
            (["--out", folder.file("site/x.mp4")], 64, "NAME.m3u8"),
        ]
        for (arguments, code, message) in cases {
            let result = try avpipe(["hls", input] + arguments)
            #expect(result.status == code && result.stderrText.contains(message), "\(arguments): \(result.status) \(result.stderrText)")
        }
        for out in ["site/x.m3u8", "fresh/x.m3u8"] {
            let broken = try avpipe(["hls", folder.file("noise.mp4"), "--out", folder.file(out)])
            #expect(broken.status == 66, "\(broken.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")

        let readOnly = try RestrictedOutput.runWithReadOnlyFolder(folder.file("site"), [Locations.avpipe, "hls", input, "--out", folder.file("site/y.m3u8")])
        #expect(readOnly.status == 73, "\(readOnly.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")
    }

    /// A VOD run killed outright leaves only its hidden staging folder, which the next run in that
    /// folder removes. (A VOD stream is made from files: this one reads a named pipe whose writer
    /// stalls half-way, so the run is killed mid-stream.)
    @Test func aKilledVODRunIsCleanedUpByTheNext() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        let source = folder.file("in.ts")
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", source])
        let fifo = folder.file("in.fifo")
        guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
        let feeder = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo), let bytes = FileManager.default.contents(atPath: source) else { return }
            handle.write(bytes.prefix(bytes.count / 2))
            Thread.sleep(forTimeInterval: 4)
            try? handle.close()
        }
        feeder.start()
        let running = try RunningProcess(Locations.avpipe, ["hls", fifo, "--out", folder.file("site/a.m3u8"), "--segment", "2"], environment: [:])
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

    /// A stream written in real time (like a recording, or a live input's) is published as it
    /// goes, every segment kept: killed outright, it leaves a playlist listing each segment
    /// finished before the kill, all there and playable, as ffmpeg's hls muxer does.
    @Test func aKilledRealTimeStreamKeepsItsPlaylistAndFinishedSegments() throws {
        let folder = TemporaryDirectory()
        let input = try Self.source(folder)
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        let playlist = folder.file("site/r.m3u8")
        let running = try RunningProcess(Locations.avpipe, ["hls", input, "--out", playlist, "--realtime", "--segment", "2"], environment: [:])
        let listed = Self.waitUntilListed(playlist, count: 2, by: running)
        try #require(listed >= 2 && running.isRunning, "the stream never got under way")
        kill(running.identifier, SIGKILL)
        _ = running.finish(within: 5)
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(!text.contains("#EXT-X-ENDLIST") && text.contains("#EXT-X-PLAYLIST-TYPE:EVENT"), "\(text)")
        let entries = try Self.playlistEntries(playlist)
        // Each finished segment is listed: none is left out between the first and the last.
        #expect(entries.map(\.uri) == (0..<entries.count).map { "r\($0).ts" }, "\(text)")
        for entry in entries {
            let segment = folder.file("site/\(entry.uri)")
            let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", segment, "-f", "null", "-"])
            #expect(fileSize(segment) > 0 && decode.status == 0, "\(entry.uri): \(decode.stderrText)")
        }
        // (Not the playlist as a whole: without an end, players wait for more, as for any live stream.)
        // Run to its end, such a stream is complete: its playlist ends, listing every segment.
        let short = try DemuxMedia.movie(folder.file("short.mp4"), seconds: 2, size: "160x120", videoArguments: ["-g", "25"])
        let done = try avpipe(["hls", short, "--out", folder.file("site/d.m3u8"), "--realtime", "--segment", "1"])
        #expect(done.status == 0, "\(done.stderrText)")
        let finished = try String(contentsOfFile: folder.file("site/d.m3u8"), encoding: .utf8)
        let finishedCount = try Self.playlistEntries(folder.file("site/d.m3u8")).count
        #expect(finished.hasSuffix("#EXT-X-ENDLIST\n") && finishedCount == 2, "\(finished)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("site"))
        #expect(!names.contains { $0.hasPrefix("d") && $0.hasSuffix(".tmp") }, "no temporary file left: \(names)")
    }
}
