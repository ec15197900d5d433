import Foundation
import Testing
import TestSupport

@Suite struct EncodeCommandTests {
    /// With no --bitrate the bit rate grows with the channels as ffmpeg's (its aacenc's default per
    /// channel element: 69 kb/s single, 128 pair, 16 LFE; 5.1 was 96 kb/s in all): `--jobs 1` gives
    /// ffmpeg's bytes for mono, stereo and 5.1, and the M4A's stream bit rate is ffmpeg's.
    @Test(arguments: [1, 2, 6])
    func theDefaultBitRateIsFFmpegsForTheChannels(channels: Int) throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 2, sampleRate: 48_000, channels: channels)
        #expect(try avpipe(["encode", wav, folder.file("ours.aac"), "--jobs", "1"]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", folder.file("ffmpeg.aac")])
        #expect(try fileBytes(folder.file("ours.aac")) == fileBytes(folder.file("ffmpeg.aac")), "\(channels) channel(s)")
        #expect(try avpipe(["encode", wav, folder.file("ours.m4a")]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", folder.file("ffmpeg.m4a")])
        let ours = try Probe.run(folder.file("ours.m4a")).int("bit_rate") ?? 0
        let theirs = try Probe.run(folder.file("ffmpeg.m4a")).int("bit_rate") ?? 0
        #expect(theirs > 0 && abs(ours - theirs) <= theirs / 20, "\(channels) channel(s): \(ours) against ffmpeg's \(theirs) b/s")
    }

    /// Exactly the form on the user's card.
    @Test func theUserCardCommandWritesAnADTSFileFFprobeAccepts() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 3)
        let result = try avpipe(["encode", "--in", folder.file("pcm.wav"), "--out", folder.file("test.aac"), "--bitrate", "96000"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.isEmpty, "no progress chatter when stderr is not a terminal")
        let probe = try Probe.run(folder.file("test.aac"))
        #expect(probe.format["format_name"] as? String == "aac")
        #expect(probe.string("codec_name") == "aac" && probe.string("profile") == "LC")
        #expect(try ADTSParser.headers(try fileBytes(folder.file("test.aac"))).count == (3 * 44_100 + 1023) / 1024 + 1)
    }

    @Test(arguments: [("test.m4a", "ipod", "M4A "), ("test.mp4", "mp4", "isom")])
    func mp4FlavoursFollowTheExtension(name: String, _: String, brand: String) throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1)
        let result = try avpipe(["encode", "--in", folder.file("pcm.wav"), "--out", folder.file(name)])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(folder.file(name))
        #expect((probe.format["tags"] as? [String: Any])?["major_brand"] as? String == brand)
        #expect(probe.string("codec_name") == "aac")
    }

    @Test func formatOverridesTheExtension() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1)
        let result = try avpipe(["encode", "--in", folder.file("pcm.wav"), "--out", folder.file("stream.bin"), "--format", "adts"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try ADTSParser.headers(try fileBytes(folder.file("stream.bin"))).count > 10)
    }

    /// Each bad input: a one-line error naming the culprit, the documented exit code, and the
    /// folder left exactly as it was (no output, no temporary file).
    struct BadCase: Sendable, CustomTestStringConvertible {
        let name: String
        let arrange: @Sendable (TemporaryDirectory) throws -> [String]
        let exitCode: Int32
        let mentions: String
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "missing input", arrange: { d in ["--in", d.file("nope.wav"), "--out", d.file("o.aac")] }, exitCode: 66, mentions: "nope.wav"),
        BadCase(name: "empty file", arrange: { d in
            _ = FileManager.default.createFile(atPath: d.file("empty.wav"), contents: Data())
            return ["--in", d.file("empty.wav"), "--out", d.file("o.aac")]
        }, exitCode: 66, mentions: "empty.wav"),
        BadCase(name: "text renamed .wav", arrange: { d in
            try Data(String(repeating: "this is not audio\n", count: 200).utf8).write(to: URL(fileURLWithPath: d.file("notes.wav")))
            return ["--in", d.file("notes.wav"), "--out", d.file("o.aac")]
        }, exitCode: 66, mentions: "notes.wav"),
        BadCase(name: "truncated WAV", arrange: { d in
            try MediaFactory.tone(d.file("full.wav"), seconds: 1)
            let bytes = try fileBytes(d.file("full.wav"))
            try Data(bytes.prefix(bytes.count / 2 + 1)).write(to: URL(fileURLWithPath: d.file("cut.wav")))
            try FileManager.default.removeItem(atPath: d.file("full.wav"))
            return ["--in", d.file("cut.wav"), "--out", d.file("o.aac"), "--strict"]  // by default salvaged
        }, exitCode: 66, mentions: "cut.wav"),
        BadCase(name: "directory as input", arrange: { d in
            try FileManager.default.createDirectory(atPath: d.file("dir.wav"), withIntermediateDirectories: false)
            return ["--in", d.file("dir.wav"), "--out", d.file("o.aac")]
        }, exitCode: 66, mentions: "dir.wav"),
        BadCase(name: "no audio track", arrange: { d in
            try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:duration=0.5", "-c:v", "libx264", d.file("silent.mp4")])
            return ["--in", d.file("silent.mp4"), "--out", d.file("o.aac")]
        }, exitCode: 66, mentions: "no audio track"),
        BadCase(name: "output folder missing", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("missing/o.aac")]
        }, exitCode: 73, mentions: "missing"),
        BadCase(name: "bitrate 0", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("o.aac"), "--bitrate", "0"]
        }, exitCode: 64, mentions: "bitrate"),
        BadCase(name: "negative bitrate", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("o.aac"), "--bitrate=-96000"]
        }, exitCode: 64, mentions: "bitrate"),
        BadCase(name: "absurd bitrate", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("o.aac"), "--bitrate", "1000000000"]
        }, exitCode: 64, mentions: "bitrate"),
        BadCase(name: "unknown extension", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("o.ogg")]
        }, exitCode: 64, mentions: ".ogg"),
        BadCase(name: "output is the input", arrange: { d in
            try MediaFactory.tone(d.file("in.wav"), seconds: 0.3)
            return ["--in", d.file("in.wav"), "--out", d.file("in.wav"), "--format", "adts", "--overwrite"]
        }, exitCode: 64, mentions: "in.wav"),
    ]

    @Test(arguments: badCases)
    func badInputFailsCleanly(_ bad: BadCase) throws {
        let folder = TemporaryDirectory()
        let arguments = try bad.arrange(folder)
        let before = folder.contents()
        let result = try avpipe(["encode"] + arguments)
        #expect(result.status == bad.exitCode, "stderr: \(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n")
        #expect(lines.count == 1, "one line, got: \(result.stderrText)")
        #expect(lines.first?.hasPrefix("avpipe: error: ") == true)
        #expect(result.stderrText.contains(bad.mentions))
        #expect(folder.contents() == before, "the folder must be left as it was")
    }

    @Test func anExistingOutputIsKeptUnlessOverwriteIsGiven() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.3)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: folder.file("o.aac")))
        let refused = try avpipe(["encode", "--in", folder.file("in.wav"), "--out", folder.file("o.aac")])
        #expect(refused.status == 73)
        #expect(refused.stderrText.contains("--overwrite"))
        #expect(try fileBytes(folder.file("o.aac")) == Array("precious".utf8))
        let replaced = try avpipe(["encode", "--in", folder.file("in.wav"), "--out", folder.file("o.aac"), "-y"])
        #expect(replaced.status == 0)
        #expect(try Probe.run(folder.file("o.aac")).string("codec_name") == "aac")
        #expect(folder.contents() == ["in.wav", "o.aac"])
    }

    @Test func aReadOnlyOutputFolderIsAnOutputError() throws {
        let folder = TemporaryDirectory()
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.3)
        let result = try RestrictedOutput.runWithReadOnlyFolder(locked, [Locations.avpipe, "encode", "--in", folder.file("in.wav"), "--out", locked + "/o.aac"])
        #expect(result.status == 73, "\(result.stderrText)")
        #expect(result.stderrText.contains("o.aac"))
        #expect(folder.contents() == ["in.wav", "locked"])
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: locked)) ?? []).isEmpty)
    }
}
