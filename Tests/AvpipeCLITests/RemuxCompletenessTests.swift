import Foundation
import Testing
import TestSupport

/// Remux copies every track, chapters, subtitles and the cover, selects tracks on request, names
/// what the target cannot hold, starts the output's timeline at 0 and gives Matroska's B-frame
/// streams decode times — each checked with ffprobe (and mkvmerge for Matroska outputs) against
/// the input and against `ffmpeg -c copy`.
@Suite struct RemuxCompletenessTests {
    struct Stream: Equatable, CustomStringConvertible {
        let type: String, codec: String, language: String?
        var description: String { "\(type)/\(codec)/\(language ?? "-")" }
    }

    struct Chapter: Equatable {
        let start: Double, end: Double, title: String?
    }

    /// The streams ffprobe lists, without MP4's chapter-title track (which holds the chapters).
    static func streams(_ path: String) throws -> [Stream] {
        try Probe.run(path).streams.compactMap { stream in
            let codec = stream["codec_name"] as? String ?? "?"
            guard codec != "bin_data" else { return nil }
            return Stream(type: stream["codec_type"] as? String ?? "?", codec: codec,
                          language: (stream["tags"] as? [String: String])?["language"])
        }
    }

    static func chapters(_ path: String) throws -> [Chapter] {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-of", "json", "-show_chapters", path])
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return (json?["chapters"] as? [[String: Any]] ?? []).map { chapter in
            Chapter(start: Double(chapter["start_time"] as? String ?? "") ?? -1, end: Double(chapter["end_time"] as? String ?? "") ?? -1,
                    title: (chapter["tags"] as? [String: String])?["title"])
        }
    }

    /// MD5 of every packet of one stream, in order: equal lists mean the payloads were copied as they are.
    static func packetHashes(_ path: String, stream: String) throws -> [String] {
        try Probe.packetHashes(path, stream: stream).split(separator: "\n").map(String.init)
    }

    /// A 3 s film: video, English and French audio, German mov_text subtitles, two chapters, a title.
    static func film(in folder: TemporaryDirectory, subtitleCodec: String = "mov_text", name: String = "film.mp4") throws -> String {
        let subtitles = folder.file("cues.srt")
        try "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:02,000 --> 00:00:02,800\nWorld\n".write(toFile: subtitles, atomically: true, encoding: .utf8)
        let chapters = folder.file("chapters.txt")
        try ";FFMETADATA1\ntitle=Film\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=Opening\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Ending\n"
            .write(toFile: chapters, atomically: true, encoding: .utf8)
        let film = folder.file(name)
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x90:r=25:d=3", "-f", "lavfi", "-i", "sine=440:d=3",
                                 "-f", "lavfi", "-i", "sine=880:d=3", "-i", subtitles, "-i", chapters,
                                 "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map_metadata", "4", "-map_chapters", "4",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", subtitleCodec,
                                 "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=deu", film])
        return film
    }

    @Test func everyTrackChaptersSubtitlesAndTagsAreCopied() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let ours = folder.file("ours.mp4")
        let run = try avpipe(["remux", film, ours])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(!run.stderrText.contains("not copied"), "nothing is left out: \(run.stderrText)")

        let source = try Self.streams(film)
        #expect(source.count == 4, "the generated film must have its four tracks: \(source)")
        #expect(try Self.streams(ours) == source)
        try MediaFactory.ffmpeg(["-v", "error", "-i", film, "-map", "0:v", "-map", "0:a", "-map", "0:s", "-c", "copy", folder.file("ffmpeg.mp4")])
        #expect(try Self.streams(ours) == Self.streams(folder.file("ffmpeg.mp4")))
        for index in 0..<source.count {
            let hashes = try Self.packetHashes(film, stream: "\(index)"), copied = try Self.packetHashes(ours, stream: "\(index)")
            #expect(!hashes.isEmpty && copied == hashes, "stream \(index) is copied packet for packet")
        }
        let chapters = try Self.chapters(film)
        #expect(chapters.map(\.title) == ["Opening", "Ending"])
        #expect(try Self.chapters(ours) == chapters)
        #expect((try Probe.run(ours).format["tags"] as? [String: String])?["title"] == "Film")

        let bare = folder.file("bare.mp4")
        #expect(try avpipe(["remux", film, bare, "--no-metadata"]).status == 0)
        #expect(try Self.chapters(bare).isEmpty, "--no-metadata drops the chapters")
        #expect(try Self.streams(bare).count == 4, "--no-metadata keeps the tracks")
    }

    @Test func tracksAreChosenByNumber() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let french = folder.file("french.mp4")
        let run = try avpipe(["remux", film, french, "--audio-track", "1", "--no-subtitles"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.streams(french) == [Stream(type: "video", codec: "h264", language: "und"), Stream(type: "audio", codec: "aac", language: "fra")])
        #expect(try Self.packetHashes(french, stream: "a:0") == Self.packetHashes(film, stream: "a:1"))

        let audio = folder.file("audio.m4a")
        #expect(try avpipe(["remux", film, audio, "--audio-track", "all", "--no-subtitles"]).status == 0)
        #expect(try Self.streams(audio).map(\.language) == ["eng", "fra"])

        let missing = try avpipe(["remux", film, folder.file("none.mp4"), "--audio-track", "2"])
        #expect(missing.status == 64, "\(missing.stderrText)")
        #expect(missing.stderrText.contains("2 audio tracks"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("none.mp4")))
    }

    /// The cues of a file's first subtitle track as ffmpeg writes them to SubRip: text and times.
    static func cues(_ path: String) throws -> String {
        try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:s:0", "-f", "srt", "-"]).stdoutText
    }

    /// SubRip stays SubRip in Matroska (mkvmerge reads it back). Text subtitles a target cannot
    /// hold as they are are converted — SubRip to MP4's mov_text, mov_text to Matroska's SubRip —
    /// with the same cues; picture subtitles (DVD) cannot go into MP4, which the notice names.
    @Test func subtitlesAreKeptConvertedOrNamed() throws {
        let folder = TemporaryDirectory()
        let mkvFilm = try Self.film(in: folder, subtitleCodec: "srt", name: "film.mkv")
        let mkv = folder.file("copy.mkv")
        let kept = try avpipe(["remux", mkvFilm, mkv])
        #expect(kept.status == 0, "\(kept.stderrText)")
        #expect(try Self.streams(mkv) == Self.streams(mkvFilm))
        #expect(try Self.packetHashes(mkv, stream: "s:0") == Self.packetHashes(mkvFilm, stream: "s:0"))
        let tracks = try ContainerOracles.mkvmergeTracks(mkv)
        #expect(tracks.map { $0["type"] as? String } == ["video", "audio", "audio", "subtitles"])
        // Chapters as ffmpeg's own copy has them: FFmpeg 7.1 writes the AAC priming as negative
        // times, so both copies move everything, chapters too, by those 23 ms.
        let theirCopy = folder.file("ffmpeg-copy.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-i", mkvFilm, "-map", "0", "-c", "copy", theirCopy])
        #expect(try Self.chapters(mkv) == Self.chapters(theirCopy))

        // The oracle for a conversion: ffmpeg's, asked for explicitly (its plain copy refuses).
        let mp4 = folder.file("copy.mp4"), theirMP4 = folder.file("ffmpeg.mp4")
        let toMP4 = try avpipe(["remux", mkvFilm, mp4])
        #expect(toMP4.status == 0, "\(toMP4.stderrText)")
        #expect(toMP4.stderrText.contains("converted: subtitle track 3 (subrip, deu) as mov_text"), "\(toMP4.stderrText)")
        #expect(try Self.streams(mp4).last == Stream(type: "subtitle", codec: "mov_text", language: "deu"))
        try MediaFactory.ffmpeg(["-v", "error", "-i", mkvFilm, "-map", "0", "-c", "copy", "-c:s", "mov_text", theirMP4])
        let cues = try Self.cues(mp4), theirCues = try Self.cues(theirMP4)
        #expect(cues.contains("Hello") && cues.contains("World") && cues == theirCues, "\(cues)")

        let mp4Film = try Self.film(in: folder)
        let mkvFromMP4 = folder.file("from-mp4.mkv"), theirMKV = folder.file("ffmpeg.mkv")
        let toMKV = try avpipe(["remux", mp4Film, mkvFromMP4])
        #expect(toMKV.status == 0, "\(toMKV.stderrText)")
        #expect(toMKV.stderrText.contains("converted: subtitle track 3 (tx3g, deu) as subrip"), "\(toMKV.stderrText)")
        #expect(try ContainerOracles.mkvmergeTracks(mkvFromMP4).last?["codec"] as? String == "SubRip/SRT")
        try MediaFactory.ffmpeg(["-v", "error", "-i", mp4Film, "-map", "0:v", "-map", "0:a", "-map", "0:s", "-c", "copy", "-c:s", "srt", theirMKV])
        let converted = try Self.cues(mkvFromMP4), theirConversion = try Self.cues(theirMKV)
        #expect(converted.contains("World") && converted == theirConversion, "\(converted)")
    }

    /// A timecode track (data) has no place in a copy: the notice names it.
    @Test func aDataTrackIsNamedInTheNotice() throws {
        let folder = TemporaryDirectory()
        let clip = try DemuxMedia.movie(folder.file("timecode.mov"), seconds: 1, extraArguments: ["-timecode", "01:00:00:00"])
        #expect(try Probe.run(clip).streams.contains { $0["codec_type"] as? String == "data" }, "the generated clip must have a tmcd track")
        let out = folder.file("copy.mp4")
        let run = try avpipe(["remux", clip, out])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("not copied into \(out): data track 2 (tmcd, eng): only audio, video and subtitles are copied"), "\(run.stderrText)")
        #expect(try Self.streams(out).map(\.type) == ["video", "audio"])
    }

    /// An MPEG-TS starts 1.4 s in (the muxer's default delay), or just before its 33-bit clock
    /// wraps (26.5 h): the copy starts at 0 with the same A/V offset and lasts as long as the
    /// content, as ffmpeg's copy does.
    @Test(arguments: [0, 95_442])
    func aTransportStreamsTimelineStartsAtZero(offset: Int) throws {
        let folder = TemporaryDirectory()
        let ts = try DemuxMedia.movie(folder.file("in.ts"), seconds: 2.6, extraArguments: offset == 0 ? [] : ["-output_ts_offset", "\(offset)"])
        let source = try Probe.run(ts)
        let sourceStart = try #require(source.double("start_time", stream: 0))
        if offset == 0 {
            #expect(sourceStart > 1, "the generated TS starts late: \(sourceStart)")
        } else {
            let times = try Probe.packets(ts, stream: "v:0").compactMap { ($0["pts"] as? NSNumber)?.intValue }
            #expect(times.contains { $0 < 0 } && times.contains { $0 > 0 }, "the generated TS's clock wraps (FFmpeg reads it on from below 0)")
        }
        let ours = folder.file("ours.mp4")
        let run = try avpipe(["remux", ts, ours])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", ts, "-c", "copy", folder.file("ffmpeg.mp4")])
        let probed = try Probe.run(ours), theirs = try Probe.run(folder.file("ffmpeg.mp4"))
        let start = try #require(probed.format["start_time"] as? String).flatMap(Double.init) ?? -1
        #expect(abs(start) < 0.001, "starts at 0: \(start)")
        let duration = try #require(probed.duration)
        #expect(abs(duration - 2.6) <= 0.04 + 0.001, "lasts as long as the content: \(duration)")
        #expect(abs(duration - (theirs.duration ?? 0)) <= 0.04 + 0.001, "as long as ffmpeg's copy: \(duration) vs \(theirs.duration ?? 0)")
        let offset = { (probe: ProbeResult) in (probe.double("start_time", stream: 1) ?? 0) - (probe.double("start_time", stream: 0) ?? 0) }
        #expect(abs(offset(probed) - offset(source)) < 0.001, "A/V offset kept: \(offset(probed)) vs \(offset(source))")
        // MP4 stores H.264 length-prefixed, TS as Annex B: compare with ffmpeg's conversion.
        #expect(try Self.packetHashes(ours, stream: "v:0") == Self.packetHashes(folder.file("ffmpeg.mp4"), stream: "v:0"))
        #expect(try Self.packetHashes(ours, stream: "a:0") == Self.packetHashes(folder.file("ffmpeg.mp4"), stream: "a:0"))
    }

    /// Into MPEG-TS: Annex B video, ADTS audio, at the times ffmpeg's copy gives them; what TS
    /// cannot hold (mov_text, chapters) is named.
    @Test func aTransportStreamOutputCarriesWhatFFmpegsDoes() throws {
        let folder = TemporaryDirectory()
        let film = try Self.film(in: folder)
        let ours = folder.file("ours.ts"), theirs = folder.file("ffmpeg.ts")
        let run = try avpipe(["remux", film, ours])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(run.stderrText.contains("subtitle track 3 (tx3g, deu): TS cannot hold mov_text; 2 chapters: TS has no place for them"),
                "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", film, "-map", "0:v", "-map", "0:a", "-c", "copy", theirs])
        #expect(try Self.streams(ours).map(\.codec) == ["h264", "aac", "aac"])
        for stream in ["v:0", "a:0", "a:1"] {
            let ourHashes = try Probe.packetHashes(ours, stream: stream, entries: "pts,dts")
            let theirHashes = try Probe.packetHashes(theirs, stream: stream, entries: "pts,dts")
            #expect(!ourHashes.isEmpty && ourHashes == theirHashes, "\(stream): the same packets at the same times as ffmpeg's")
        }
        // GStreamer's tsdemux, an independent reader, decodes every picture of it.
        let decoded = try ContainerOracles.gstreamerDecodedStreams(ours, in: folder)
        #expect(decoded.video == 75 * 160 * 90 * 3 / 2, "GStreamer decoded \(decoded.video / (160 * 90 * 3 / 2)) pictures")
        #expect(decoded.audio > 2 * 44_100 * 2, "and the sound: \(decoded.audio / 2) samples")
    }

    /// Matroska stores no decode times: a B-frame stream gets them as ffmpeg gives them.
    @Test func anMKVWithBFramesIsCopied() throws {
        let folder = TemporaryDirectory()
        let mkv = try DemuxMedia.movie(folder.file("b.mkv"), seconds: 2, size: "320x240", videoArguments: ["-bf", "3", "-g", "25"])
        let pts = try Probe.packets(mkv, stream: "v:0").compactMap { ($0["pts"] as? NSNumber)?.intValue }
        #expect(pts != pts.sorted(), "the generated stream must have B-frames (pictures out of order)")
        let ours = folder.file("ours.mp4")
        let run = try avpipe(["remux", mkv, ours])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", mkv, "-c", "copy", folder.file("ffmpeg.mp4")])
        #expect(try Self.packetHashes(ours, stream: "v:0") == Self.packetHashes(mkv, stream: "v:0"))
        let times = { (path: String) in try Probe.packets(path, stream: "v:0").map { "\($0["pts"] ?? "-")/\($0["dts"] ?? "-")" } }
        let ourTimes = try times(ours), theirTimes = try times(folder.file("ffmpeg.mp4"))
        #expect(ourTimes == theirTimes, "the same presentation and decode times as ffmpeg's copy")
        // Audio in milliseconds becomes whole 1024-sample frames in the MP4, as in ffmpeg's copy
        // (times rounded from milliseconds would make frames of 1014 and 1035 samples).
        #expect(try Probe.packetHashes(ours, stream: "a:0", entries: "pts,dts")
                == Probe.packetHashes(folder.file("ffmpeg.mp4"), stream: "a:0", entries: "pts,dts"))
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", ours, "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderrText)")
    }

    /// The cover of an M4A survives a copy; MOV has no place for it, which the notice says.
    @Test func theCoverPictureIsCopied() throws {
        let folder = TemporaryDirectory()
        let cover = folder.file("cover.png")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:duration=1", "-frames:v", "1", cover])
        let song = folder.file("song.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-i", cover, "-map", "0", "-map", "1",
                                 "-c:a", "aac", "-c:v", "copy", "-disposition:v", "attached_pic", song])
        let copy = folder.file("copy.m4a")
        let run = try avpipe(["remux", song, copy])
        #expect(run.status == 0, "\(run.stderrText)")
        let extracted = folder.file("extracted.png")
        try MediaFactory.ffmpeg(["-v", "error", "-i", copy, "-map", "0:v", "-c", "copy", "-f", "data", extracted])
        #expect(try Data(contentsOf: URL(fileURLWithPath: extracted)) == Data(contentsOf: URL(fileURLWithPath: cover)))

        let mov = try avpipe(["remux", song, folder.file("copy.mov")])
        #expect(mov.status == 0, "\(mov.stderrText)")
        #expect(mov.stderrText.contains("the cover picture: MOV has no place for one"), "\(mov.stderrText)")
    }
}
