import Foundation
import Testing
import TestSupport

/// `decode --out` writes the format its name says: FLAC, AIFF and bare PCM hold exactly the samples
/// the WAV holds (checked by ffmpeg's reading of each); MP3 and Opus go through the system FFmpeg's
/// encoders. A name that says no format is a usage error unless `--format` says it.
@Suite struct DecodeFormatsTests {
    static func samples(_ path: String, rawArguments: [String] = []) throws -> Data {
        let result = try Subprocess.run("ffmpeg", ["-v", "error"] + rawArguments + ["-i", path, "-f", "s16le", "-"])
        guard result.status == 0, !result.stdout.isEmpty else { throw TestFailure("ffmpeg cannot read \(path): \(result.stderrText)") }
        return result.stdout
    }

    @Test func losslessFormatsHoldTheWAVsSamples() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        #expect(try avpipe(["decode", movie, "--out", folder.file("ref.wav")]).status == 0)
        let reference = try Self.samples(folder.file("ref.wav"))
        for (file, codec) in [("a.flac", "flac"), ("a.aiff", "pcm_s16be")] {
            let run = try avpipe(["decode", movie, "--out", folder.file(file)])
            #expect(run.status == 0, "\(file): \(run.stderrText)")
            #expect(try Probe.run(folder.file(file)).string("codec_name") == codec)
            #expect(try Self.samples(folder.file(file)) == reference, "\(file) holds other samples")
        }
        let raw = try avpipe(["decode", movie, "--out", folder.file("a.pcm")])
        #expect(raw.status == 0 && raw.stderrText.contains("bare s16le samples, 44100 Hz"), "\(raw.stderrText)")
        let channels = try Probe.run(movie).streams.first { $0["codec_type"] as? String == "audio" }?["channels"] as? Int ?? 0
        #expect(try Self.samples(folder.file("a.pcm"), rawArguments: ["-f", "s16le", "-ar", "44100", "-ac", "\(channels)"]) == reference)
        // A name without a format, told by --format.
        #expect(try avpipe(["decode", movie, "--out", folder.file("noext"), "--format", "flac"]).status == 0)
        #expect(try Probe.run(folder.file("noext")).string("codec_name") == "flac")
    }

    @Test(arguments: [("a.mp3", "mp3"), ("a.opus", "opus")])
    func lossyFormatsThroughTheSystemsEncoders(_ file: String, _ codec: String) throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let run = try avpipe(["decode", movie, "--out", folder.file(file)])
        #expect(run.status == 0, "\(run.stderrText)")
        let probe = try Probe.run(folder.file(file))
        #expect(probe.string("codec_name") == codec)
        #expect(abs((probe.duration ?? 0) - 2) < 0.1, "\(probe.duration ?? 0) s")
    }

    @Test func aNameWithoutAFormatIsAUsageError() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let run = try avpipe(["decode", wav, "--out", folder.file("out.xyz")])
        #expect(run.status == 64 && run.stderrText.contains("cannot tell the audio format"), "\(run.stderrText)")
        #expect(!fileExists(folder.file("out.xyz")))
    }
}
