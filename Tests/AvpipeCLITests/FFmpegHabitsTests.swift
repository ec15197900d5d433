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
