import Foundation
import Testing
import TestSupport

/// An encode carries the input's tags and cover picture into the M4A, as read back by ffprobe
/// and AtomicParsley; `--metadata` sets or removes one, `--no-metadata` drops them all.
@Suite struct EncodeTagsTests {
    static let tags = ["title": "Tïtle ✓", "artist": "An Artist", "album": "An Album", "track": "3/12", "disc": "1/2",
                       "date": "2024", "genre": "Jazz", "comment": "a comment"]

    /// A 2 s tone with `tags` and a cover picture, in `container`'s own way (ID3 for MP3, Vorbis
    /// comments and a PICTURE block for FLAC).
    static func makeInput(_ file: String, picture: String, in folder: TemporaryDirectory) throws -> (audio: String, cover: String) {
        let cover = folder.file(picture)
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:duration=1", "-frames:v", "1", cover])
        let audio = folder.file(file)
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-i", cover, "-map", "0", "-map", "1",
                                 "-c:v", "copy", "-disposition:v", "attached_pic"]
                                + (file.hasSuffix(".mp3") ? ["-c:a", "libmp3lame", "-id3v2_version", "3"] : ["-c:a", "flac"])
                                + tags.flatMap { ["-metadata", "\($0.key)=\($0.value)"] } + [audio])
        return (audio, cover)
    }

    static func formatTags(_ path: String) throws -> [String: String] {
        let tags = try Probe.run(path).format["tags"] as? [String: String] ?? [:]
        return tags.filter { ["title", "artist", "album", "track", "disc", "date", "genre", "comment"].contains($0.key) }
    }

    /// The picture in the file's `covr`, as ffmpeg extracts it.
    static func coverBytes(_ path: String, in folder: TemporaryDirectory) throws -> [UInt8] {
        let out = folder.file("cover-\(UUID().uuidString).bin")
        try MediaFactory.ffmpeg(["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "data", out])
        return try fileBytes(out)
    }

    @Test(arguments: [("song.mp3", "cover.jpg"), ("song.flac", "cover.png")])
    func tagsAndCoverArtAreCarriedOver(_ file: String, _ picture: String) throws {
        let folder = TemporaryDirectory()
        let (input, cover) = try Self.makeInput(file, picture: picture, in: folder)
        let output = folder.file("out.m4a")
        let run = try avpipe(["encode", "--in", input, "--out", output])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.formatTags(output) == Self.tags)
        _ = try ContainerOracles.atomicParsley(output)
        let listing = try ContainerOracles.atomicParsleyTags(output)
        #expect(listing.contains("Atom \"covr\" contains: 1 piece of artwork"), "\(listing)")
        #expect(listing.contains("Atom \"trkn\" contains: 3 of 12") && listing.contains("Atom \"disk\" contains: 1 of 2"), "\(listing)")
        #expect(try Self.coverBytes(output, in: folder) == fileBytes(cover), "the picture is stored as it was")
        let probe = try avpipe(["probe", output])
        #expect(probe.stdoutText.contains("title=Tïtle ✓") && probe.stdoutText.contains("cover art"), "\(probe.stdoutText)")

        // Still gapless beside the picture: iTunSMPB gives priming 1024 and the input's length
        // (as ffmpeg decodes it: LAME's header trims an MP3's own delay and padding), and the edit
        // list presents exactly that many samples.
        let length = try Subprocess.run("ffmpeg", ["-v", "error", "-i", input, "-map", "0:a", "-ac", "1", "-f", "s16le", "-"]).stdout.count / 2
        let smpb = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format_tags=iTunSMPB", "-of", "csv=p=0", output])
            .stdoutText.split(separator: " ")
        #expect(smpb.count == 12 && Int(smpb[1], radix: 16) == 1024 && Int(smpb[3], radix: 16) == length, "\(smpb), \(length) samples")
        #expect(try Probe.presentedAudioSamples(output) == length)
        #expect(listing.contains("iTunSMPB"), "AtomicParsley reads the tag: \(listing)")
    }

    @Test func metadataOptionsSetRemoveAndDrop() throws {
        let folder = TemporaryDirectory()
        let (input, _) = try Self.makeInput("song.flac", picture: "cover.png", in: folder)
        let edited = folder.file("edited.m4a")
        #expect(try avpipe(["encode", "--in", input, "--out", edited, "--metadata", "title=New", "--metadata", "comment="]).status == 0)
        var expected = Self.tags
        expected["title"] = "New"
        expected["comment"] = nil
        #expect(try Self.formatTags(edited) == expected)

        let bare = folder.file("bare.m4a")
        #expect(try avpipe(["encode", "--in", input, "--out", bare, "--no-metadata", "--metadata", "artist=Only"]).status == 0)
        #expect(try Self.formatTags(bare) == ["artist": "Only"])
        #expect(!(try ContainerOracles.atomicParsleyTags(bare)).contains("covr"))

        let malformed = try avpipe(["encode", "--in", input, "--out", folder.file("x.m4a"), "--metadata", "novalue"])
        #expect(malformed.status == 64 && !fileExists(folder.file("x.m4a")), "\(malformed.stderrText)")
        let adts = try avpipe(["encode", "--in", input, "--out", folder.file("x.aac")])
        #expect(adts.status == 0 && adts.stderrText.contains("ADTS has no place for tags"), "\(adts.stderrText)")
    }

    /// A WAV's LIST/INFO tags travel too (the capture path).
    @Test func wavTagsAreCarriedOver() throws {
        let folder = TemporaryDirectory()
        let wav = folder.file("in.wav")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-metadata", "title=From WAV",
                                 "-metadata", "artist=Someone", wav])
        let output = folder.file("out.m4a")
        #expect(try avpipe(["encode", "--in", wav, "--out", output]).status == 0)
        #expect(try Self.formatTags(output) == ["title": "From WAV", "artist": "Someone"])
    }
}
