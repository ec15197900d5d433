import Foundation
import Testing
import TestSupport

/// `--out -` (and `--audio -`, `--video -`) write to standard output what the same command writes
/// to a file, for the formats that stream: WAV, YUV4MPEG2, ADTS, Annex B, MPEG-TS (remux's and
/// mux's default there), Matroska and fragmented MP4. An unfragmented MP4 (whose index is written
/// back) is refused there, and no file named `-` is ever created.
@Suite struct StandardOutputTests {
    static func piped(_ arguments: [String], into file: String, in folder: TemporaryDirectory) throws -> ProcessResult {
        let quoted = ([Locations.avpipe] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try Subprocess.run("sh", ["-c", "cd '\(folder.path)' && \(quoted) > '\(file)'"])
    }

    static func samples(_ wav: String) throws -> Data {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", wav, "-f", "s16le", "-"])
        guard result.status == 0, !result.stdout.isEmpty else { throw TestFailure("ffmpeg cannot read \(wav): \(result.stderrText)") }
        return result.stdout
    }

    @Test func everyStreamableOutputGoesToStandardOutput() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 2)
        let jobs: [(name: String, toFile: [String], toStdout: [String], file: String)] = [
            ("decode WAV", ["decode", movie, "--out", folder.file("a.wav")], ["decode", movie, "--out", "-"], "a.wav"),
            ("decode y4m", ["decode", movie, "--video", folder.file("v.y4m")], ["decode", movie, "--video", "-"], "v.y4m"),
            ("demux ADTS", ["demux", movie, "--audio", folder.file("a.aac")], ["demux", movie, "--audio", "-"], "a.aac"),
            ("demux Annex B", ["demux", movie, "--video", folder.file("v.h264")], ["demux", movie, "--video", "-"], "v.h264"),
            ("encode ADTS", ["encode", "--in", wav, "--out", folder.file("e.aac")], ["encode", "--in", wav, "--out", "-"], "e.aac"),
            ("remux MPEG-TS", ["remux", movie, folder.file("r.ts")], ["remux", movie, "-"], "r.ts"),
            ("remux Matroska", ["remux", movie, folder.file("r.mkv")], ["remux", movie, "-", "--format", "mkv"], "r.mkv"),
            ("mux fragmented MP4", ["mux", "--audio", folder.file("a.aac"), "--out", folder.file("f.mp4"), "--fragmented"],
             ["mux", "--audio", folder.file("a.aac"), "--out", "-", "--format", "mp4", "--fragmented"], "f.mp4"),
        ]
        for job in jobs {
            let toFile = try avpipe(job.toFile)
            #expect(toFile.status == 0, "\(job.name): \(toFile.stderrText)")
            let streamed = folder.file("streamed-\(job.file)")
            let toStdout = try Self.piped(job.toStdout, into: streamed, in: folder)
            #expect(toStdout.status == 0, "\(job.name): \(toStdout.stderrText)")
            if job.file.hasSuffix(".wav") {
                // A streamed WAV cannot have its sizes patched: they say "unknown" (0xFFFFFFFF), as
                // ffmpeg writes them to a pipe. The samples are the same.
                #expect(try Self.samples(streamed) == Self.samples(folder.file(job.file)), "\(job.name): the samples differ")
            } else if job.file.hasSuffix(".mkv") || job.file.hasSuffix(".mp4") {
                // Written to a file, Matroska goes back for its cues and duration, a fragmented MP4
                // for its fragment index: the packets are the same.
                for stream in job.file.hasSuffix(".mkv") ? ["v:0", "a:0"] : ["a:0"] {
                    let streamedHashes = try Probe.packetHashes(streamed, stream: stream, entries: "pts")
                    let fileHashes = try Probe.packetHashes(folder.file(job.file), stream: stream, entries: "pts")
                    #expect(!fileHashes.isEmpty && streamedHashes == fileHashes, "\(job.name) \(stream): the packets differ")
                }
            } else {
                #expect(try fileBytes(streamed) == fileBytes(folder.file(job.file)), "\(job.name): standard output differs from the file")
            }
        }
        #expect(!fileExists(folder.file("-")))
    }

    @Test func outputsThatCannotStreamAreRefused() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 1)
        let m4a = try Self.piped(["encode", "--in", wav, "--out", "-", "--format", "m4a"], into: folder.file("o.m4a"), in: folder)
        #expect(m4a.status == 64 && m4a.stderrText.contains("fragmented"), "\(m4a.stderrText)")
        #expect(fileSize(folder.file("o.m4a")) == 0, "nothing reached standard output")
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let mp4 = try Self.piped(["remux", movie, "-", "--format", "mp4"], into: folder.file("o.mp4"), in: folder)
        #expect(mp4.status == 64 && mp4.stderrText.contains("--fragmented"), "\(mp4.stderrText)")
        #expect(fileSize(folder.file("o.mp4")) == 0, "nothing reached standard output")
        let both = try avpipe(["decode", wav, "--out", "-", "--video", "-"])
        #expect(both.status == 64 && both.stderrText.contains("only one output"), "\(both.stderrText)")
        #expect(!fileExists(folder.file("-")))
    }
}
