import Foundation
import Testing
import TestSupport

/// `avpipe encode` of a movie keeps every track the output can carry, as `remux` does: each audio
/// track encoded, the subtitles copied or converted, Matroska's attachments; `--audio-track` and
/// `--no-subtitles` choose. Checked with ffprobe (codec, language, tags), ffmpeg's own SubRip of
/// the subtitles and the attachment's bytes as ffmpeg dumps them.
@Suite struct EncodeTracksTests {
    struct Stream: Equatable, CustomStringConvertible {
        let type: String, codec: String, language: String?
        var description: String { "\(type)/\(codec)/\(language ?? "-")" }
    }

    static func streams(_ path: String) throws -> [Stream] {
        try Probe.run(path).streams.map { stream in
            Stream(type: stream["codec_type"] as? String ?? "?", codec: stream["codec_name"] as? String ?? "?",
                   language: (stream["tags"] as? [String: String])?["language"])
        }
    }

    /// A 2 s film in Matroska: video, English and French audio, German SubRip subtitles and a "font".
    static func film(in folder: TemporaryDirectory) throws -> String {
        let cues = folder.file("cues.srt")
        try "1\n00:00:00,500 --> 00:00:01,200\nHello\n\n2\n00:00:01,400 --> 00:00:01,900\nWorld\n".write(toFile: cues, atomically: true, encoding: .utf8)
        let font = folder.file("font.ttf")
        try Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: font))
        let film = folder.file("film.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x90:r=25:d=2", "-f", "lavfi", "-i", "sine=440:d=2",
                                 "-f", "lavfi", "-i", "sine=880:d=2", "-i", cues, "-attach", font,
                                 "-map", "0", "-map", "1", "-map", "2", "-map", "3",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "srt",
                                 "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=deu",
                                 "-metadata:s:t", "mimetype=application/x-truetype-font", film])
        return film
    }

    /// The first subtitle track as ffmpeg writes it in SubRip, at the file's own times (`-copyts`:
    /// FFmpeg 7's Matroska starts at a negative time, the AAC priming, which ffmpeg would otherwise
    /// subtract from the cues but not from ffprobe's start times).
    static func subRip(_ path: String) throws -> String {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-copyts", "-i", path, "-map", "0:s:0", "-f", "srt", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not read the subtitles of \(path): \(result.stderrText)") }
        return result.stdoutText
    }

    struct Cue: Equatable, CustomStringConvertible {
        let start: Double, end: Double, text: String
        var description: String { "\(start)–\(end) \(text)" }
    }

    /// `path`'s first subtitle track's cues as ffmpeg reads them, their times counted from where
    /// its video starts (ffprobe's start_time): where they show against the pictures.
    static func cues(_ path: String) throws -> [Cue] {
        let video = try #require(Probe.run(path).streams.first { $0["codec_type"] as? String == "video" }
            .flatMap { ($0["start_time"] as? String).flatMap(Double.init) })
        func seconds(_ text: Substring) -> Double {
            let parts = text.split(whereSeparator: { $0 == ":" || $0 == "," }).compactMap { Double($0) }
            return parts.count == 4 ? parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000 : .nan
        }
        return try subRip(path).components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard lines.count >= 3, let arrow = lines[1].range(of: " --> ") else { return nil }
            return Cue(start: seconds(lines[1][..<arrow.lowerBound]) - video, end: seconds(lines[1][arrow.upperBound...]) - video,
                       text: lines[2...].joined(separator: "\n"))
        }
    }

    /// Whether two cue lists say the same, their times within `tolerance` (SubRip's milliseconds).
    static func same(_ ours: [Cue], _ theirs: [Cue], tolerance: Double = 0.0015) -> Bool {
        ours.count == theirs.count && zip(ours, theirs).allSatisfy { a, b in
            a.text == b.text && abs(a.start - b.start) < tolerance && abs(a.end - b.end) < tolerance
        }
    }

    /// The bytes of `path`'s first attachment, as ffmpeg dumps it.
    static func attachment(_ path: String, folder: TemporaryDirectory, name: String) throws -> [UInt8] {
        let dump = folder.file(name)
        // ffmpeg dumps the attachment, then complains that no output was named.
        _ = try Subprocess.run("ffmpeg", ["-v", "error", "-dump_attachment:t:0", dump, "-i", path])
        return try fileBytes(dump)
    }

    @Test func everyTrackGoesIntoMatroska() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let out = folder.file("out.mkv")
        let run = try avpipe(["encode", "--in", film, "--out", out, "--preset", "ultrafast"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(!run.stderrText.contains("not in"), "nothing is left out: \(run.stderrText)")
        let expected = [Stream(type: "video", codec: "h264", language: nil), Stream(type: "audio", codec: "aac", language: "eng"),
                        Stream(type: "audio", codec: "aac", language: "fra"), Stream(type: "subtitle", codec: "subrip", language: "deu"),
                        Stream(type: "attachment", codec: "ttf", language: nil)]
        #expect(try Self.streams(film).map(\.type) == expected.map(\.type), "the generated film has its five tracks")
        #expect(try Self.streams(out) == expected)
        let source = try Self.cues(film), cues = try Self.cues(out)
        #expect(source.map(\.text) == ["Hello", "World"])
        #expect(Self.same(cues, source), "ours \(cues), the source's \(source)")
        let tags = try Probe.run(out).streams[4]["tags"] as? [String: String]
        #expect(tags?["filename"] == "font.ttf" && tags?["mimetype"] == "application/x-truetype-font", "\(tags ?? [:])")
        let bytes = try Self.attachment(out, folder: folder, name: "dumped.ttf"), font = try fileBytes(folder.file("font.ttf"))
        let same = bytes == font
        #expect(bytes.count == 3000 && same)
        // Each audio track is the source's own, encoded: 440 Hz and 880 Hz.
        for (index, frequency) in [(1, 440.0), (2, 880.0)] {
            #expect(try Probe.packets(out, stream: "\(index)").count > 80, "audio track \(index) runs the whole 2 s (\(frequency) Hz)")
        }
    }

    @Test func mp4ConvertsSubtitlesAndNamesTheAttachment() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let out = folder.file("out.mp4")
        let run = try avpipe(["encode", "--in", film, "--out", out, "--preset", "ultrafast"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("attachment track 4 (ttf, font.ttf): MP4 has no place for attachments"), "\(run.stderrText)")
        #expect(run.stderrText.contains("subtitle track 3 (subrip, deu) as mov_text"), "\(run.stderrText)")
        #expect(try Self.streams(out) == [Stream(type: "video", codec: "h264", language: "und"), Stream(type: "audio", codec: "aac", language: "eng"),
                                          Stream(type: "audio", codec: "aac", language: "fra"), Stream(type: "subtitle", codec: "mov_text", language: "deu")])
        let source = try Self.cues(film), cues = try Self.cues(out)
        #expect(source.count == 2 && Self.same(cues, source), "ours \(cues), the source's \(source)")
    }

    @Test func audioTrackAndNoSubtitlesChoose() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let out = folder.file("out.mkv")
        let run = try avpipe(["encode", "--in", film, "--out", out, "--preset", "ultrafast", "--audio-track", "1", "--no-subtitles"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.streams(out) == [Stream(type: "video", codec: "h264", language: nil), Stream(type: "audio", codec: "aac", language: "fra"),
                                          Stream(type: "attachment", codec: "ttf", language: nil)])
    }

    @Test func aCutKeepsTheCuesOfThePart() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let out = folder.file("out.mkv")
        let run = try avpipe(["encode", "--in", film, "--out", out, "--preset", "ultrafast", "--start", "1", "--duration", "0.6"])
        #expect(run.status == 0, "\(run.stderrText)")
        // The part is 1.0–1.6 of the source's timeline: its cues (ffmpeg's Matroska put them
        // where its pictures are) cut to it, "Hello" starting at the part's start, each measured
        // from the part's first picture, as ours are from our first.
        // --start counts from the input's start, which FFmpeg 7's Matroska puts at the AAC
        // priming's negative time (5.1's at 0).
        let source = try Self.cues(film), probe = try Probe.run(film)
        let sourceVideo = try #require(probe.double("start_time"))
        let (partStart, partEnd) = { (s: Double) in (s + 1, s + 1.6) }((probe.format["start_time"] as? String).flatMap(Double.init) ?? 0)
        let firstPicture = try EncodeVideoCLITests.pictures(film).map(\.time).filter { $0 >= partStart - 0.0005 }.min() ?? .nan
        let expected = source.compactMap { cue -> Cue? in
            let (start, end) = (cue.start + sourceVideo, cue.end + sourceVideo)
            guard end > partStart, start < partEnd else { return nil }
            return Cue(start: max(start, partStart) - firstPicture, end: end - firstPicture, text: cue.text)
        }
        #expect(expected.count == 2)
        let cues = try Self.cues(out)
        #expect(Self.same(cues, expected), "ours \(cues), expected \(expected)")
    }

    @Test func remuxCopiesTheAttachmentIntoMatroska() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let run = try avpipe(["remux", film, folder.file("out.mkv")])
        #expect(run.status == 0 && !run.stderrText.contains("not copied"), "\(run.stderrText)")
        let bytes = try Self.attachment(folder.file("out.mkv"), folder: folder, name: "dumped.ttf"), font = try fileBytes(folder.file("font.ttf"))
        let same = bytes == font
        #expect(bytes.count == 3000 && same)
        let toMP4 = try avpipe(["remux", film, folder.file("out.mp4")])
        #expect(toMP4.status == 0 && toMP4.stderrText.contains("attachment track 4 (ttf, font.ttf): MP4 has no place for attachments"),
                "\(toMP4.stderrText)")
    }
}
