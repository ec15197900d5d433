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
            // ADTS carries no priming or padding: FFmpeg's encoder writes ceil(N/1024) frames for N
            // samples plus one for its 1024 samples of priming (±1: the input's length as ffmpeg
            // decodes it may differ from ours by a frame's worth at its ends, e.g. MP3's padding).
            let frames = try ADTSParser.headers(try fileBytes(output))
            let wanted = (expected + 1023) / 1024 + 1
            #expect(abs(frames.count - wanted) <= 1, "\(frames.count) ADTS frames for \(expected) samples, expected \(wanted)")
            let channels = try Probe.run(input).int("channels", stream: source.name == "a movie's sound" ? 1 : 0)
            #expect(frames.allSatisfy { $0.audioObjectType == 2 && $0.sampleRate == source.sampleRate && $0.channelConfiguration == channels },
                    "AAC-LC at the input's rate and channels (\(channels.map(String.init) ?? "?"))")
            // ffprobe reads the same frames as AAC at the input's rate.
            let probe = try Probe.run(output)
            #expect(probe.string("codec_name") == "aac" && probe.int("sample_rate") == source.sampleRate, "\(probe.streams)")
            #expect(try Probe.packets(output).count == frames.count)
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
        // Sample-exact: the edit list presents 1.5 s × 44,100 samples, no more, no fewer.
        let presented = try Probe.presentedAudioSamples(output)
        #expect(presented == 66_150, "the M4A presents \(presented.map(String.init) ?? "?") samples for 1.5 s")
        #expect(abs(SignalAnalysis.dominantFrequency(samples, sampleRate: 44_100, start: 4410) - 1000) <= 10, "starts after the step")
    }

    /// `--audio-track N` counts audio tracks only (the video track before them does not count):
    /// in an MKV of a 440 Hz and a 1000 Hz track, 1 is the second tone, 0 (and no option) the first.
    @Test func audioTrackPicksTheTrack() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("two.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=3",
                                 "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-f", "lavfi", "-i", "sine=frequency=1000:duration=3",
                                 "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:a", "flac", input])
        for (track, pitch) in [(["--audio-track", "1"], 1000.0), (["--audio-track", "0"], 440), ([], 440)] {
            let output = folder.file("track\(track.last ?? "-").m4a")
            let run = try avpipe(["encode", "--in", input, "--out", output] + track)
            #expect(run.status == 0, "\(run.stderrText)")
            let heard = SignalAnalysis.dominantFrequency(try Self.decoded(output, rate: 44_100), sampleRate: 44_100)
            #expect(abs(heard - pitch) <= 10, "\(track): \(heard) Hz, expected \(pitch)")
        }
        let missing = try avpipe(["encode", "--in", input, "--out", folder.file("none.m4a"), "--audio-track", "2"])
        #expect(missing.status == 64 && missing.stderrText.contains("2 audio tracks"), "\(missing.stderrText)")
        #expect(!fileExists(folder.file("none.m4a")))
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

    /// Near the floor: FFmpeg 5.1 writes about 21.7 kb/s of a 44.1 kHz stereo tone asked for at
    /// 19 kb/s (14 % over, which a 15 % margin let pass silently) — warned, with the rate ffprobe
    /// measures. At 32 kb/s it writes the rate asked (within 1 %; not the ~34 kb/s the issue
    /// expected): no warning.
    @Test func aRateJustBelowTheFloorIsReported() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("tone.wav")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-ac", "2", input])
        for (kbps, warns) in [(19, true), (32, false)] {
            let output = folder.file("\(kbps)k.m4a")
            let run = try avpipe(["encode", "--in", input, "--out", output, "--bitrate", "\(kbps)k"])
            #expect(run.status == 0, "\(run.stderrText)")
            let measured = try #require(try Probe.run(output).int("bit_rate"))
            let words = run.stderrText.split(separator: " ")
            let reported = words.firstIndex(of: "wrote").flatMap { Int(words[$0 + 1]) }
            if warns {
                #expect(measured > kbps * 1000 * 103 / 100, "\(measured) b/s written for \(kbps) kb/s")
                #expect(reported.map { abs($0 - measured / 1000) <= 1 } == true, "warning: \(run.stderrText), ffprobe: \(measured) b/s")
            } else {
                #expect(abs(measured - kbps * 1000) < kbps * 1000 * 3 / 100, "\(measured) b/s written for \(kbps) kb/s")
                #expect(run.stderrText.isEmpty, "\(run.stderrText)")
            }
        }
    }
}
