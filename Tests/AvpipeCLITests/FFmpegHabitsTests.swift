import Foundation
import Testing
import TestSupport

/// What ffmpeg users type works: `-i` names the input everywhere, `encode IN OUT` takes bare names,
/// `help NAME` with an unknown NAME is a usage error, and `--fps` overrides the frame rate a raw
/// stream's headers declare (some declare nonsense).
@Suite struct FFmpegHabitsTests {
    @Test func helpForAnUnknownSubcommandIsAUsageError() throws {
        let unknown = try avpipe(["help", "foo"])
        #expect(unknown.status == 64 && unknown.stderrText.contains("unknown subcommand 'foo'"), "\(unknown.stderrText)")
        #expect(try avpipe(["help", "encode"]).status == 0)
        let mux = try avpipe(["mux", "--help"])
        #expect(mux.stdoutText.contains("--fps <rate>") && !mux.stdoutText.contains("FrameRateArgument"), "\(mux.stdoutText)")
        // The default rate of raw video, readably (the option's own default cannot show: it has none).
        let words = mux.stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("rate, else 25."), "\(mux.stdoutText)")
    }

    /// A negative value as its own word (`--start -5`) was read as an option ("Missing value for
    /// '--start'"): now every numeric option answers with its range, exit 64, before any input is read.
    @Test func aNegativeValueGetsTheOptionsRange() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let cases: [(arguments: [String], option: String, range: String)] = [
            (["play", wav, "--volume", "-1"], "--volume", "between 0 and 1"),
            (["decode", wav, folder.file("o.wav"), "--start", "-5"], "--start", "0 or more"),
            (["decode", wav, folder.file("o.wav"), "--duration", "-1:30"], "--duration", "0 or more"),
            (["encode", wav, folder.file("o.aac"), "--bitrate", "-96k"], "--bitrate", "above 0"),
            (["encode", wav, folder.file("o.aac"), "--channels", "-2"], "--channels", "between 1 and 8"),
            (["frame", wav, "--at", "1", "--width", "-320", "--out", folder.file("a.png")], "--width", "between 1 and"),
            (["frame", wav, "--every", "-.5", "--out", folder.file("a.png")], "--every", "above 0"),
            (["remux", wav, folder.file("o.mkv"), "--audio-track", "-1"], "--audio-track", "from 0"),
            (["record", "--out", folder.file("r.aac"), "--buffer", "-1"], "--buffer", "between 0.05 and 60"),
        ]
        for item in cases {
            let result = try avpipe(item.arguments)
            #expect(result.status == 64 && result.stderrText.contains(item.option) && result.stderrText.contains(item.range)
                    && !result.stderrText.contains("Missing value"), "\(item.arguments): \(result.stderrText)")
        }
        #expect(folder.contents() == ["in.wav"])
    }

    /// `-i` names the input of remux, hls, demux and frame as their bare input does: the same files.
    @Test func dashINamesTheInputOfEveryCopyCommand() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        // What follows the input, writing into folder `out`; the files it writes.
        let jobs: [(command: String, rest: (String) -> [String], outputs: [String])] = [
            ("remux", { ["\($0)/r.mp4"] }, ["r.mp4"]),
            ("hls", { ["--out", "\($0)/h.m3u8", "--segment", "1"] }, ["h.m3u8", "h0.ts"]),
            ("demux", { ["--audio", "\($0)/d.aac", "--video", "\($0)/d.h264"] }, ["d.aac", "d.h264"]),
            ("frame", { ["--at", "1", "--out", "\($0)/f.png"] }, ["f.png"]),
        ]
        for name in ["bare", "dash"] { try FileManager.default.createDirectory(atPath: folder.file(name), withIntermediateDirectories: false) }
        for job in jobs {
            let bare = try avpipe([job.command, movie] + job.rest(folder.file("bare")))
            #expect(bare.status == 0, "\(job.command): \(bare.stderrText)")
            let dashed = try avpipe([job.command, "-i", movie] + job.rest(folder.file("dash")))
            #expect(dashed.status == 0, "\(job.command) -i: \(dashed.stderrText)")
            for output in job.outputs {
                let ours = folder.file("dash/\(output)"), reference = folder.file("bare/\(output)")
                #expect(try fileSize(ours) > 0 && fileBytes(ours) == fileBytes(reference), "\(job.command) -i: \(output) differs")
            }
        }
        // The reference is sound: ffprobe reads what the bare forms wrote.
        #expect(try Probe.run(folder.file("bare/r.mp4")).streams.count == 2)
        #expect(try Probe.run(folder.file("bare/f.png")).string("codec_name") == "png")
    }

    /// `mux -i FILE` takes a file's first video and first audio track; repeated, each file gives
    /// what the earlier ones did not: the same packets as --video/--audio.
    @Test func dashIFeedsMux() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mkv"), seconds: 2)
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-an", "-c:v", "copy", folder.file("v.h264")])
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-vn", "-c:a", "copy", folder.file("a.aac")])
        let named = folder.file("named.mp4"), once = folder.file("once.mp4"), twice = folder.file("twice.mp4"), raw = folder.file("raw.mp4")
        #expect(try avpipe(["mux", "--video", movie, "--audio", movie, "--out", named]).status == 0)
        #expect(try avpipe(["mux", "-i", movie, "--out", once]).status == 0)
        #expect(try avpipe(["mux", "-i", folder.file("v.h264"), "-i", folder.file("a.aac"), "--out", twice]).status == 0)
        #expect(try avpipe(["mux", "--video", folder.file("v.h264"), "--audio", folder.file("a.aac"), "--out", raw]).status == 0)
        for stream in ["v:0", "a:0"] {
            let reference = try Probe.packetHashes(named, stream: stream, entries: "pts,dts")
            #expect(try !reference.isEmpty && Probe.packetHashes(once, stream: stream, entries: "pts,dts") == reference, "-i \(stream)")
            let rawReference = try Probe.packetHashes(raw, stream: stream, entries: "pts,dts")
            #expect(try !rawReference.isEmpty && Probe.packetHashes(twice, stream: stream, entries: "pts,dts") == rawReference, "-i -i \(stream)")
        }
        let unused = try avpipe(["mux", "-i", movie, "-i", folder.file("a.aac"), "--out", folder.file("unused.mp4")])
        #expect(unused.status == 64 && unused.stderrText.contains("already come from another input"), "\(unused.stderrText)")
        #expect(!fileExists(folder.file("unused.mp4")))
    }

    /// remux --video-track N copies the N-th video track only; a bit rate with an M suffix is the
    /// same request as the number written out.
    @Test func videoTrackChoiceAndMegabitSuffix() throws {
        let folder = TemporaryDirectory()
        let two = folder.file("two.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=1",
                                 "-f", "lavfi", "-i", "smptebars=size=128x72:rate=25:duration=1",
                                 "-map", "0", "-map", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", two])
        let second = folder.file("second.mp4")
        let run = try avpipe(["remux", two, second, "--video-track", "1"])
        #expect(run.status == 0, "\(run.stderrText)")
        let probe = try Probe.run(second)
        #expect(probe.streams.count == 1 && probe.int("width") == 128, "\(probe.streams)")
        #expect(try Probe.packetHashes(second, stream: "v:0") == Probe.packetHashes(two, stream: "v:1"))

        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 2)
        #expect(try avpipe(["encode", wav, folder.file("m.aac"), "--bitrate", "0.192M"]).status == 0)
        #expect(try avpipe(["encode", wav, folder.file("n.aac"), "--bitrate", "192000"]).status == 0)
        #expect(try avpipe(["encode", wav, folder.file("d.aac")]).status == 0)
        #expect(try fileBytes(folder.file("m.aac")) == fileBytes(folder.file("n.aac")), "0.192M is 192000 b/s")
        #expect(try fileBytes(folder.file("m.aac")) != fileBytes(folder.file("d.aac")), "and not the default rate (128 kb/s for stereo)")
        let rate = Double(fileSize(folder.file("m.aac")) * 8) / 2
        #expect(abs(rate - 192_000) < 192_000 * 0.15, "about 192 kb/s: \(rate)")
    }

    @Test func inputAndOutputAsFFmpegTakesThem() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        #expect(try avpipe(["encode", wav, folder.file("bare.aac")]).status == 0)
        #expect(try avpipe(["encode", "-i", wav, folder.file("dash-i.m4a")]).status == 0)
        #expect(try Probe.run(folder.file("bare.aac")).string("codec_name") == "aac")
        #expect(try Probe.run(folder.file("dash-i.m4a")).string("codec_name") == "aac")
        let missing = try avpipe(["encode", wav])
        #expect(missing.status == 64 && missing.stderrText.contains("name the input and the output"), "\(missing.stderrText)")
        #expect(try avpipe(["encode", "--in", wav, "--out", folder.file("a.aac"), folder.file("b.aac")]).status == 64)
        #expect(!fileExists(folder.file("a.aac")) && !fileExists(folder.file("b.aac")))

        let decode = try avpipe(["decode", "-i", folder.file("dash-i.m4a"), "--out", folder.file("back.wav")])
        #expect(decode.status == 0, "\(decode.stderrText)")
        let probe = try avpipe(["probe", "-i", folder.file("dash-i.m4a")])
        #expect(probe.status == 0 && probe.stdoutText.contains("aac"), "\(probe.stderrText)")
    }

    /// 100 pictures whose VUI timing says a million frames a second: muxed as declared they last
    /// 0.1 ms; `--fps 25` makes them the 4 s they are.
    @Test func fpsOverridesANonsenseDeclaredRate() throws {
        let folder = TemporaryDirectory()
        let raw = folder.file("fast.h264")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25", "-frames:v", "100",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-bsf:v", "h264_metadata=tick_rate=2000000", raw])
        #expect(try avpipe(["mux", "--video", raw, "--out", folder.file("declared.mp4")]).status == 0)
        let declared = try Probe.run(folder.file("declared.mp4")).duration ?? -1
        #expect(declared < 0.01, "as declared: \(declared) s")
        let forced = try avpipe(["mux", "--video", raw, "--out", folder.file("forced.mp4"), "--fps", "25"])
        #expect(forced.status == 0, "\(forced.stderrText)")
        let duration = try Probe.run(folder.file("forced.mp4")).duration ?? -1
        #expect(abs(duration - 4) < 0.05, "with --fps 25: \(duration) s")
    }
}
