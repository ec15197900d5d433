import Foundation
import Testing
import TestSupport

/// Partial downloads of the containers without a packet index: cut wherever the container says how
/// long it is (Matroska's Segment size, an MP3's Xing byte count, an Ogg stream's last page, a
/// cut MPEG-TS packet, a FLAC's sample count), each command that reads warns once and exits 0, `--strict` exits 66 and
/// writes nothing; the same files uncut (and files that declare no length) give no warning.
/// Also: counts after `--start`, `probe` of a cut MP4, junk after a whole ADTS stream.
@Suite struct PartialDownloadContainerTests {
    static func warnings(_ result: ProcessResult) -> [Substring] {
        result.stderrText.split(separator: "\n").filter { $0.hasPrefix("avpipe: warning: ") }
    }

    /// A few seconds of `ext` as ffmpeg writes it (audio, with small video where the container is a movie one).
    static func make(_ ext: String, in folder: TemporaryDirectory, name: String = "in", extra: [String] = []) throws -> String {
        let path = folder.file("\(name).\(ext)")
        let audio = ["-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
        let video = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3"]
        let arguments: [String] = switch ext {
        case "mkv": audio + video + ["-c:a", "aac", "-c:v", "libx264"]
        case "webm": audio + video + ["-c:a", "libopus", "-c:v", "libvpx", "-b:v", "200k"]
        case "ts": audio + video + ["-c:a", "aac", "-c:v", "libx264"]
        case "mp3": audio + ["-c:a", "libmp3lame", "-q:a", "4"]
        case "opus": audio + ["-c:a", "libopus"]
        case "flac": audio + ["-c:a", "flac"]
        default: audio
        }
        try MediaFactory.ffmpeg(["-v", "error", "-y"] + arguments + extra + [path])
        return path
    }

    @Test(arguments: ["mkv", "webm", "mp3", "opus", "ts", "flac"])
    func aCutFileIsReportedByEveryCommandAndRefusedUnderStrict(_ ext: String) throws {
        let folder = TemporaryDirectory()
        let intact = try Self.make(ext, in: folder)
        let download = try PartialDownload(intact, fraction: 0.6, as: folder.file("cut.\(ext)"))
        // A FLAC's cut shows only once read (its sample count against the frames), so probe cannot
        // tell; its decoder also reports the cut last frame it was handed.
        let commands: [[String]] = [
            ["decode", download.cutFile, "--out", folder.file("o.wav")],
            ["remux", download.cutFile, folder.file("o.mkv")],
            ["encode", "--in", download.cutFile, "--out", folder.file("o.m4a")],
        ] + (ext == "flac" ? [] : [["probe", download.cutFile]])
            + (["mkv", "ts"].contains(ext) ? [["demux", download.cutFile, "--audio", folder.file("o.aac")]] : [])
        for command in commands {
            let run = try avpipe(command)
            #expect(run.status == 0, "\(command): \(run.stderrText)")
            let incomplete = Self.warnings(run).filter { $0.contains("incomplete") }
            #expect(incomplete.count == 1 && (ext == "flac" || Self.warnings(run).count == 1), "\(command): \(run.stderrText)")
        }
        // Matroska and MP3 declare their length in bytes: the intact file's (ffmpeg writes the
        // Segment to the end, and the Xing count from that frame to the end).
        if ["mkv", "webm", "mp3"].contains(ext) {
            let run = try avpipe(["decode", download.cutFile, "--null"])
            #expect(run.stderrText.contains("declares \(fileSize(intact)) bytes, the file has \(download.cutLength)"), "\(run.stderrText)")
        }

        let before = FolderSnapshot(folder.path)
        for command in commands {
            let strict = try avpipe(command.map { $0.replacingOccurrences(of: "/o.", with: "/s.") } + ["--strict"])
            #expect(strict.status == 66, "\(command): \(strict.stderrText)")
            #expect(strict.stderrText.contains("truncated"), "\(command): \(strict.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before, "--strict wrote nothing")

        for command in commands {
            let whole = try avpipe(command.map { $0 == download.cutFile ? intact : $0.replacingOccurrences(of: "/o.", with: "/w.") } + ["--strict"])
            #expect(whole.status == 0 && whole.stderrText.isEmpty, "\(command) of the intact file: \(whole.stderrText)")
        }
    }

    /// Complete files of many writers, including those that declare no length at all (a Matroska
    /// written to a pipe: unknown Segment size, no Cues or Duration; an MP3 without a Xing header).
    @Test func wholeFilesAreNotCalledCut() throws {
        let folder = TemporaryDirectory()
        let sine = ["-f", "lavfi", "-i", "sine=frequency=440:duration=2"]
        let picture = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2"]
        var files = [
            try Self.make("mp3", in: folder, name: "tags", extra: ["-write_id3v1", "1", "-id3v2_version", "3", "-metadata", "title=T"]),
            try Self.make("mp3", in: folder, name: "mono22k", extra: ["-ac", "1", "-ar", "22050"]),
            try Self.make("mp3", in: folder, name: "noxing", extra: ["-write_xing", "0"]),
            try Self.make("mkv", in: folder, name: "cuesfront", extra: ["-reserve_index_space", "2000"]),
            try Self.make("webm", in: folder, name: "live", extra: ["-live", "1"]),
        ]
        for (name, arguments) in [("piped.mkv", sine + picture + ["-c:a", "aac", "-c:v", "libx264", "-f", "matroska"]),
                                  ("piped.opus", sine + ["-c:a", "libopus", "-f", "ogg"]),
                                  ("piped.flac", sine + ["-c:a", "flac", "-f", "flac"]),  // no sample count
                                  ("theora.ogv", sine + picture + ["-c:a", "libvorbis", "-c:v", "libtheora"]),
                                  ("flac.oga", sine + ["-c:a", "flac"]),
                                  ("m2ts.m2ts", sine + picture + ["-c:a", "aac", "-c:v", "libx264", "-mpegts_m2ts_mode", "1", "-f", "mpegts"])] {
            let path = folder.file(name)
            if name.hasPrefix("piped") {
                // Written to a pipe: nothing is patched in at the end.
                let run = try Subprocess.run("sh", ["-c", "ffmpeg -v error " + arguments.map { "'\($0)'" }.joined(separator: " ") + " - > '\(path)'"])
                #expect(run.status == 0, "\(run.stderrText)")
            } else {
                try MediaFactory.ffmpeg(["-v", "error", "-y"] + arguments + [path])
            }
            files.append(path)
        }
        // An Ogg stream a tagger appended an ID3v1 tag to.
        let tagged = folder.file("tagged.opus")
        try Data(try fileBytes(folder.file("piped.opus")) + Array("TAG".utf8) + [UInt8](repeating: 0, count: 125))
            .write(to: URL(fileURLWithPath: tagged))
        files.append(tagged)
        let merged = folder.file("merged.mkv")
        let mkvmerge = try Subprocess.run("mkvmerge", ["-q", "-o", merged, try Self.make("mkv", in: folder, name: "source")])
        #expect(mkvmerge.status == 0, "\(mkvmerge.stderrText)")
        files.append(merged)
        if Locations.corpusAvailable { files.append(Locations.corpusFile("muxjs__test-segment.ts")) }
        for file in files {
            for command in [["decode", file, "--null", "--strict"], ["probe", file, "--strict"]] {
                let run = try avpipe(command)
                #expect(run.status == 0 && run.stderrText.isEmpty, "\(command): \(run.stderrText)")
            }
        }
    }

    /// The counts do not depend on `--start`: the packets missing are those of the index after
    /// the last intact one (ffprobe's packets lying wholly before the cut are the intact ones),
    /// for both tracks, with or without `--null`.
    @Test func countsAfterAStartAreTheWholeTrack() throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 6, size: "160x120", extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: 0.5, as: folder.file("cut.mp4"))
        var expected: [String] = []
        for stream in ["v:0", "a:0"] {
            let all = try download.allPackets(stream).count, present = try download.intactPackets(stream).count
            expected.append("\(all - present) of \(all) packets are missing")
        }
        for start in [[], ["--start", "1"]] {
            let null = try avpipe(["decode", download.cutFile, "--null"] + start)
            #expect(null.status == 0, "\(null.stderrText)")
            for text in expected { #expect(null.stderrText.contains(text), "\(start): \(null.stderrText) lacks '\(text)'") }
            let audio = try avpipe(["decode", download.cutFile, "--out", folder.file("o\(start.count).wav")] + start)
            #expect(audio.stderrText.contains(expected[1]), "\(start): \(audio.stderrText) lacks '\(expected[1])'")
        }
    }

    /// `probe` of a cut MP4 gives the frames present (ffprobe's packets lying wholly before the
    /// cut), not the index's count, with a warning; `--strict` says the same in its error, exit 66.
    @Test func probeOfACutMP4ReportsWhatIsPresent() throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4, size: "160x120", extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: 0.5, as: folder.file("cut.mp4"))
        let present = try download.intactPackets("v:0").count, all = try download.allPackets("v:0").count
        #expect(present < all)
        let plain = try avpipe(["probe", download.cutFile])
        #expect(plain.status == 0 && Self.warnings(plain).count == 1, "\(plain.stderrText)")
        #expect(plain.stdoutText.contains("\(present) of \(all) frames present"), "\(plain.stdoutText)")
        let strict = try avpipe(["probe", download.cutFile, "--strict"])
        #expect(strict.status == 66 && strict.stderrText.contains("truncated"), "\(strict.stderrText)")
        #expect(strict.stderrText.contains("holds \(present) of its \(all) packets"), "\(strict.stderrText)")
        #expect(strict.stdoutText.isEmpty)
        let json = try avpipe(["probe", download.cutFile, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any])
        let tracks = try #require(object["tracks"] as? [[String: Any]])
        #expect(tracks.first { $0["kind"] as? String == "video" }?["frames"] as? Int == present)
        #expect(object["incomplete"] is String)
        let whole = try avpipe(["probe", intact, "--strict"])
        #expect(whole.status == 0 && whole.stderrText.isEmpty && whole.stdoutText.contains("\(all) frames"), "\(whole.stderrText)")
    }

    /// Junk after a whole ADTS stream: every frame before it is decoded (ffmpeg's samples, byte for
    /// byte) and demuxed (the stream as it was), with one warning; `--strict` refuses it.
    @Test func junkAfterAnADTSStreamIsLeftOut() throws {
        let folder = TemporaryDirectory()
        let clean = try DemuxMedia.movie(folder.file("clean.aac"), seconds: 2, video: false)
        let stream = try fileBytes(clean)
        let junked = folder.file("junk.aac")
        try Data(stream + Array(String(repeating: "this is not audio\n", count: 150).utf8)).write(to: URL(fileURLWithPath: junked))

        let decode = try avpipe(["decode", junked, "--out", folder.file("o.wav")])
        #expect(decode.status == 0 && Self.warnings(decode).count == 1, "\(decode.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", junked, "-f", "s16le", folder.file("ff.pcm")])
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", folder.file("o.wav"), "-f", "s16le", folder.file("ours.pcm")])
        let ours = try fileBytes(folder.file("ours.pcm"))
        #expect(ours.count == (try ADTSParser.headers(stream)).count * 1024 * 2)
        #expect(ours == (try fileBytes(folder.file("ff.pcm"))), "ffmpeg's decode of the frames before the junk")

        let demux = try avpipe(["demux", junked, "--audio", folder.file("o.aac")])
        #expect(demux.status == 0 && Self.warnings(demux).count == 1, "\(demux.stderrText)")
        #expect(try fileBytes(folder.file("o.aac")) == stream)

        let before = FolderSnapshot(folder.path)
        for command in [["decode", junked, "--out", folder.file("s.wav")], ["demux", junked, "--audio", folder.file("s.aac")]] {
            let strict = try avpipe(command + ["--strict"])
            #expect(strict.status == 66, "\(command): \(strict.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before)
    }
}
