import Foundation
import Testing
import TestSupport

/// `avpipe encode` from any audio FFmpeg decodes, not only WAV: each format made by ffmpeg,
/// encoded to ADTS and M4A, then checked by ffmpeg's decoder (length, pitch) and by faad.
@Suite struct EncodeAnyAudioTests {
    struct Source: Sendable, CustomTestStringConvertible {
        let name: String
        let file: String
        let arguments: [String]
        var sampleRate = 44_100
        var testDescription: String { name }
    }

    static let sources: [Source] = [
        Source(name: "MP3", file: "in.mp3", arguments: ["-c:a", "libmp3lame", "-b:a", "128k"]),
        Source(name: "FLAC", file: "in.flac", arguments: ["-c:a", "flac"]),
        Source(name: "Opus", file: "in.opus", arguments: ["-c:a", "libopus", "-ar", "48000"], sampleRate: 48_000),
        Source(name: "Vorbis", file: "in.ogg", arguments: ["-c:a", "libvorbis"]),
        Source(name: "ALAC", file: "in.m4a", arguments: ["-c:a", "alac"]),
        Source(name: "AC-3", file: "in.ac3", arguments: ["-c:a", "ac3"]),
        Source(name: "AAC in M4A", file: "in.m4a", arguments: ["-c:a", "aac"]),
        Source(name: "a movie's sound", file: "in.mkv",
               arguments: ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=3", "-map", "1:v", "-map", "0:a", "-c:v", "libx264", "-c:a", "aac"]),
    ]

    /// A 3 s stereo 440 Hz tone in the format `source` says.
    static func make(_ source: Source, in folder: TemporaryDirectory) throws -> String {
        let path = folder.file(source.file)
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(source.sampleRate):duration=3", "-ac", "2"]
                                + source.arguments + [path])
        return path
    }

    /// Decodes `path` with ffmpeg to mono float samples.
    static func decoded(_ path: String, rate: Int) throws -> [Float] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-ac", "1", "-ar", "\(rate)", "-f", "f32le", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(arguments: sources, ["aac", "m4a"])
    func everyAudioFormatEncodes(_ source: Source, container: String) throws {
        let folder = TemporaryDirectory()
        let input = try Self.make(source, in: folder)
        let output = folder.file("out.\(container)")
        let run = try avpipe(["encode", "--in", input, "--out", output, "--bitrate", "128k"])
        #expect(run.status == 0, "\(run.stderrText)")
        let samples = try Self.decoded(output, rate: source.sampleRate)
        // The input's length: what its MP4 edit list presents, else what ffmpeg decodes of it.
        let expected = try Probe.presentedAudioSamples(input) ?? Self.decoded(input, rate: source.sampleRate).count
        if container == "m4a" {
            // Gapless: the edit list presents exactly the input's samples (priming and padding cut).
            let presented = try Probe.presentedAudioSamples(output)
            #expect(presented == expected, "the M4A presents \(presented.map(String.init) ?? "?") samples, the input \(expected)")
        } else {
            // ADTS carries no priming or padding: whole frames, the priming one included.
            #expect(abs(samples.count - expected) <= 2048, "\(samples.count) samples, the input decodes to \(expected)")
        }
        let pitch = SignalAnalysis.dominantFrequency(samples, sampleRate: source.sampleRate, start: source.sampleRate)
        #expect(abs(pitch - 440) <= 10, "the tone survives: \(pitch) Hz")
        let faad = try Subprocess.run("faad", ["-w", output])
        #expect(faad.status == 0 && faad.stdout.count > 100_000, "faad decodes it: \(faad.stderrText.suffix(300))")
    }

    /// `--start`/`--duration` cut the decoded audio before encoding: a tone that changes pitch at
    /// 1 s, encoded from 1 s for 1.5 s, is 1.5 s of the second pitch.
    @Test func startAndDurationCutTheInput() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("steps.flac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "aevalsrc='if(lt(t,1),sin(2*PI*440*t),sin(2*PI*1000*t))/2':s=44100:d=3",
                                 "-c:a", "flac", input])
        let output = folder.file("cut.m4a")
        let run = try avpipe(["encode", "--in", input, "--out", output, "--start", "1", "--duration", "1.5"])
        #expect(run.status == 0, "\(run.stderrText)")
        let samples = try Self.decoded(output, rate: 44_100)
        #expect(abs(samples.count - 66_150) <= 2048, "\(samples.count) samples for 1.5 s")
        #expect(abs(SignalAnalysis.dominantFrequency(samples, sampleRate: 44_100, start: 4410) - 1000) <= 10, "starts after the step")
    }

    /// `--channels 2` downmixes 5.1; `--rate` resamples.
    @Test func channelsAndRateConvert() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("surround.ac3")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-ac", "6", "-c:a", "ac3", input])
        let output = folder.file("stereo.m4a")
        let run = try avpipe(["encode", "--in", input, "--out", output, "--channels", "2", "--rate", "48000"])
        #expect(run.status == 0, "\(run.stderrText)")
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=channels,sample_rate", "-of", "csv=p=0", output])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "48000,2", "\(probe.stdoutText)")
    }

    /// A bit rate with a k/M suffix is read as such; a malformed one, or --realtime for a
    /// compressed input, is a usage error.
    @Test func bitRateSuffixesAndUsageErrors() throws {
        let folder = TemporaryDirectory()
        let input = try Self.make(Self.sources[1], in: folder)
        let output = folder.file("o.m4a")
        #expect(try avpipe(["encode", "--in", input, "--out", output, "--bitrate", "160k"]).status == 0)
        let rate = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=bit_rate", "-of", "csv=p=0", output]).stdoutText
        let bitsPerSecond = Int(rate.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(abs(bitsPerSecond - 160_000) < 40_000, "about 160 kb/s: \(bitsPerSecond)")
        #expect(try avpipe(["encode", "--in", input, "--out", folder.file("x.m4a"), "--bitrate", "12x"]).status == 64)
        let realtime = try avpipe(["encode", "--in", input, "--out", folder.file("y.m4a"), "--realtime"])
        #expect(realtime.status == 64 && realtime.stderrText.contains("PCM WAV input only"), "\(realtime.stderrText)")
        #expect(!fileExists(folder.file("y.m4a")))
    }

    /// A rate above what AAC-LC carries is lowered with a warning naming the rate used; one below
    /// FFmpeg's floor is encoded at the floor, with a warning giving the rate written (as measured
    /// from the file by ffprobe).
    @Test func bitRatesOutOfReachAreReported() throws {
        let folder = TemporaryDirectory()
        let narrow = folder.file("8k.wav"), wide = folder.file("music.wav")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=3", narrow])
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "anoisesrc=color=pink:duration=5:amplitude=0.3",
                                 "-ac", "2", "-ar", "44100", wide])
        let clamped = try avpipe(["encode", "--in", narrow, "--out", folder.file("8k.m4a"), "--bitrate", "64k"])
        #expect(clamped.status == 0 && clamped.stderrText.contains("using 48 kb/s"), "\(clamped.stderrText)")
        let declared = try Probe.run(folder.file("8k.m4a")).int("bit_rate") ?? 0
        #expect(declared <= 48_000 * 115 / 100, "\(declared) b/s")

        let floor = try avpipe(["encode", "--in", wide, "--out", folder.file("low.m4a"), "--bitrate", "8k"])
        #expect(floor.status == 0, "\(floor.stderrText)")
        let probe = try Probe.run(folder.file("low.m4a"))
        let measured = (probe.int("bit_rate") ?? 0) / 1000
        let reported = floor.stderrText.split(separator: " ").firstIndex(of: "wrote").map { floor.stderrText.split(separator: " ")[$0 + 1] }
        #expect(measured > 9, "FFmpeg's floor is above the request: \(measured) kb/s")
        #expect(reported.flatMap { Int($0) }.map { abs($0 - measured) <= 2 } == true, "warning: \(floor.stderrText), ffprobe: \(measured) kb/s")
    }
}
