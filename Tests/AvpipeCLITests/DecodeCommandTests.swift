import Foundation
import Testing
import TestSupport

@Suite struct DecodeCommandTests {
    /// 60 s is ~2800 packets: many batched hand-offs between the decoding and the writing task,
    /// which is also what makes the sanitizer run see the two threads contend.
    @Test(arguments: [1, 60])
    func decodeWritesTheSamePCMAsFFmpeg(seconds: Int) throws {
        let folder = TemporaryDirectory()
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                 "-ac", "2", "-c:a", "aac", folder.file("in.m4a")])
        let result = try avpipe(["decode", folder.file("in.m4a"), "--out", folder.file("out.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(folder.file("out.wav"))
        #expect(probe.string("codec_name") == "pcm_s16le")
        let ours = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file("out.wav"), "-c", "copy", "-f", "s16le", "-"]).stdout
        // ffmpeg's decode, ended where the edit list ends the audio (FFmpeg 5.1 keeps the padding).
        let theirs = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file("in.m4a"), "-f", "s16le", "-"]).stdout
        let presented = try #require(try Probe.presentedAudioSamples(folder.file("in.m4a")))
        #expect(presented == 48_000 * seconds)
        #expect(ours == theirs.prefix(presented * 2 * 2))
    }

    /// `--audio-track N` decodes a second language as encode's does, and a bare output name works
    /// as `--out` (as ffmpeg takes it, and as encode and remux take it). Oracle: ffmpeg `-map 0:a:N`.
    @Test func decodeTakesAnAudioTrackAndABareOutputName() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("two.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
                                 "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=1",
                                 "-map", "0:a", "-map", "1:a", "-c:a", "flac", input])
        for track in [0, 1] {
            let wav = folder.file("track\(track).wav")
            let result = try avpipe(["decode", input, wav, "--audio-track", "\(track)"])
            #expect(result.status == 0, "\(result.stderrText)")
            let theirs = try Subprocess.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0:a:\(track)", "-f", "s16le", "-"]).stdout
            let ours = try StandardOutputTests.samples(wav)
            #expect(!theirs.isEmpty && ours == theirs, "track \(track)")
        }
        let missing = try avpipe(["decode", input, folder.file("x.wav"), "--audio-track", "2"])
        #expect(missing.status == 64 && missing.stderrText.contains("audio track"), "\(missing.stderrText)")  // as encode
        let both = try avpipe(["decode", input, folder.file("y.wav"), "--out", folder.file("z.wav")])
        #expect(both.status == 64 && both.stderrText.contains("already named"), "\(both.stderrText)")
    }

    /// An xHE-AAC (USAC) stream, which FFmpeg 5.1's AAC decoder does not implement ("Function not
    /// implemented"), is refused naming the profile, exit 69. No encoder here writes USAC, so the
    /// input is an AAC-LC M4A whose AudioSpecificConfig is rewritten in place to object type 42
    /// (same length, nothing else moves); ffmpeg's own decode of it is the oracle for whether this
    /// FFmpeg implements the profile.
    @Test func anUnimplementedAACProfileIsNamed() throws {
        let folder = TemporaryDirectory()
        let plain = folder.file("lc.m4a"), usac = folder.file("usac.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", plain])
        var bytes = try fileBytes(plain)
        // esds: DecoderSpecificInfo (tag 5, length in FFmpeg's four-byte form), then the config.
        let esdsName: [UInt8] = Array("esds".utf8), longLength: [UInt8] = [0x80, 0x80, 0x80]
        var esds = 0
        while esds + 4 < bytes.count && Array(bytes[esds..<esds + 4]) != esdsName { esds += 1 }
        var tag = esds
        while tag + 5 < bytes.count && !(bytes[tag] == 5 && Array(bytes[tag + 1..<tag + 4]) == longLength) { tag += 1 }
        try #require(tag + 5 < bytes.count, "no DecoderSpecificInfo in \(plain)")
        let length = Int(bytes[tag + 4])
        try #require(length >= 3)
        // Object type 31 + 10 = 42, 44.1 kHz (index 4), one channel; the rest of the config zeros.
        let config: [UInt8] = [0xF9, 0x48, 0x20] + Array(repeating: 0, count: length - 3)
        bytes.replaceSubrange(tag + 5..<tag + 5 + length, with: config)
        try Data(bytes).write(to: URL(fileURLWithPath: usac))
        let theirs = try Subprocess.run("ffmpeg", ["-v", "error", "-i", usac, "-f", "null", "-"])
        let ours = try avpipe(["decode", usac, folder.file("out.wav")])
        #expect(!fileExists(folder.file("out.wav")) || ours.status == 0)
        guard theirs.status != 0, theirs.stderrText.contains("not implemented") else {
            print("notice: this FFmpeg's AAC decoder takes object type 42 (\(theirs.stderrText)): avpipe exit \(ours.status)")
            #expect([0, 66, 69].contains(ours.status), "\(ours.stderrText)")
            return
        }
        #expect(ours.status == 69 && ours.stderrText.contains("xHE-AAC (USAC)") && ours.stderrText.contains("not supported by this FFmpeg"),
                "\(ours.status) \(ours.stderrText)")
    }

    @Test func decodeConvertsToTheRequestedFormat() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1",
                                 "-ac", "2", "-c:a", "aac", folder.file("in.aac")])
        let result = try avpipe(["decode", folder.file("in.aac"), "--out", folder.file("out.wav"),
                                 "--sample-format", "flt", "--rate", "16000", "--channels", "1"])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(folder.file("out.wav"))
        #expect(probe.string("codec_name") == "pcm_f32le")
        #expect(probe.int("sample_rate") == 16_000)
        #expect(probe.int("channels") == 1)
        #expect(abs((probe.duration ?? 0) - 1.0) < 0.1)
    }

    @Test func badInputsExitWithTheDocumentedCodesAndLeaveNothing() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=0.5:size=64x64:rate=10",
                                 "-c:v", "mpeg4", folder.file("video.mp4")])
        let noAudio = try avpipe(["decode", folder.file("video.mp4"), "--out", folder.file("out.wav")])
        #expect(noAudio.status == 66)
        #expect(noAudio.stderrText.contains("has no audio track"))
        let missing = try avpipe(["decode", folder.file("nope.mp4"), "--out", folder.file("out.wav")])
        #expect(missing.status == 66)
        let badFormat = try avpipe(["decode", folder.file("video.mp4"), "--out", folder.file("out.wav"), "--sample-format", "s24"])
        #expect(badFormat.status == 64)
        #expect(folder.contents() == ["video.mp4"], "no output or temporary file left behind")
    }

    @Test func helpDocumentsDecodeAndPlay() throws {
        let decode = try avpipe(["decode", "--help"])
        for option in ["--out", "--sample-format", "--rate", "--channels", "--overwrite"] {
            #expect(decode.stdoutText.contains(option), "decode help lacks \(option)")
        }
        let play = try avpipe(["play", "--help"])
        for option in ["--device", "--volume", "--list-devices"] {
            #expect(play.stdoutText.contains(option), "play help lacks \(option)")
        }
    }
}
