import Foundation
import Testing
import TestSupport

/// `avpipe frame`: the picture at a time as PNG, pixel for pixel what `ffmpeg -ss T -i in
/// -frames:v 1 [-vf scale=W:-1]` writes (same scaler flags, same colour conversion, same
/// autorotation), for 8- and 10-bit video and every rotation.
@Suite struct FrameCLITests {
    /// The decoded pixels of a PNG (and its size and format), read by ffmpeg.
    static func pixels(_ png: String) throws -> (facts: String, pixels: Data) {
        let facts = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,pix_fmt", "-of", "csv=p=0", png])
        let raw = try Subprocess.run("ffmpeg", ["-v", "error", "-i", png, "-f", "rawvideo", "-"])
        guard facts.status == 0, raw.status == 0 else { throw TestFailure("cannot read \(png): \(facts.stderrText)\(raw.stderrText)") }
        return (facts.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), raw.stdout)
    }

    /// `decodingFromTheStart`: ffmpeg decodes from the start and picks the picture (`-ss` after
    /// `-i`), for an MPEG-TS file, whose input seek (a search over its bytes) can land mid-GOP.
    static func expectSameAsFFmpeg(_ input: String, at time: String, width: Int? = nil, in folder: TemporaryDirectory,
                                   decodingFromTheStart: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = folder.file("ours.png"), theirs = folder.file("ffmpeg.png")
        let result = try avpipe(["frame", input, "--at", time, "--out", ours, "-y"] + (width.map { ["--width", "\($0)"] } ?? []))
        #expect(result.status == 0, "\(result.stderrText)", sourceLocation: sourceLocation)
        let position = decodingFromTheStart ? ["-i", input, "-ss", time] : ["-ss", time, "-i", input]
        try MediaFactory.ffmpeg(["-v", "error", "-y"] + position + ["-frames:v", "1"]
                                + (width.map { ["-vf", "scale=\($0):-1"] } ?? []) + [theirs])
        let a = try pixels(ours), b = try pixels(theirs)
        #expect(a.facts == b.facts, "\(input) at \(time)", sourceLocation: sourceLocation)
        let same = a.pixels == b.pixels  // outside #expect, whose diff of two large arrays takes minutes
        #expect(same, "\(input) at \(time), width \(width.map(String.init) ?? "same"): pixels differ from ffmpeg's",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: [0, 90, 180, 270])
    func uprightAndPixelIdenticalToFFmpeg(rotation: Int) throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 4, size: "320x180", videoArguments: ["-g", "25", "-bf", "2"], audio: false)
        let input = folder.file("in.mp4")
        try MediaFactory.rotated(plain, degrees: rotation, to: input)
        for (time, width) in [("2.5", nil), ("0:01.3", 160 as Int?)] {
            try Self.expectSameAsFFmpeg(input, at: time, width: width, in: folder)
        }
        let facts = try Self.pixels(folder.file("ours.png")).facts
        #expect(facts == (rotation % 180 == 0 ? "160,90,rgb24" : "160,284,rgb24"), "upright size")
    }

    @Test func tenBitVideoGivesSixteenBitPNG() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2", "-c:v", "libx265",
                                 "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", input])
        try Self.expectSameAsFFmpeg(input, at: "1.2", in: folder)
        #expect(try Self.pixels(folder.file("ours.png")).facts == "320,240,rgb48be")
    }

    @Test(arguments: ["androidx__sample_rotate_and_reflect.mp4", "muxjs__test-segment.ts"])
    func corpusPicturesMatchFFmpeg(_ name: String) throws {
        guard Locations.corpusAvailable else { print("notice: ../shared/corpus absent; \(name) skipped"); return }
        let folder = TemporaryDirectory()
        // The TS segment has a keyframe every 15 pictures: ffmpeg's input seek lands between them
        // and decodes 0.5 s from a P picture; avpipe steps back to the keyframe, as a whole decode does.
        let ts = name.hasSuffix(".ts")
        try Self.expectSameAsFFmpeg(Locations.corpusFile(name), at: "0.5", in: folder, decodingFromTheStart: ts)
        try Self.expectSameAsFFmpeg(Locations.corpusFile(name), at: "0.5", width: 160, in: folder, decodingFromTheStart: ts)
    }

    @Test func aSeriesIsNumberedAndWholeOrNothing() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4, audio: false)
        let every = try avpipe(["frame", input, "--every", "1", "--out", folder.file("t.png")])
        #expect(every.status == 0, "\(every.stderrText)")
        #expect(folder.contents() == ["in.mp4", "t-001.png", "t-002.png", "t-003.png", "t-004.png"])
        let pattern = try avpipe(["frame", input, "--at", "0.5", "--at", "3", "--out", folder.file("p%02d.png")])
        #expect(pattern.status == 0, "\(pattern.stderrText)")
        #expect(fileExists(folder.file("p01.png")) && fileExists(folder.file("p02.png")))
        // A series goes into a folder made for it when only that last level is missing.
        let intoNewFolder = try avpipe(["frame", input, "--every", "1", "--out", folder.file("shots/t.png")])
        #expect(intoNewFolder.status == 0, "\(intoNewFolder.stderrText)")
        #expect(try fileBytes(folder.file("shots/t-004.png")) == fileBytes(folder.file("t-004.png")))
        try FileManager.default.removeItem(atPath: folder.file("shots"))

        let before = FolderSnapshot(folder.path)
        let late = try avpipe(["frame", input, "--at", "1", "--at", "9", "--out", folder.file("late.png")])
        #expect(late.status == 64 && late.stderrText.contains("ends before"), "\(late.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing of a failed series stays")
        let existing = try avpipe(["frame", input, "--at", "1", "--out", folder.file("t-001.png")])
        #expect(existing.status == 73)
        let audioOnly = try DemuxMedia.movie(folder.file("a.m4a"), seconds: 1, video: false)
        #expect(try avpipe(["frame", audioOnly, "--at", "0", "--out", folder.file("a.png")]).status == 66)
        #expect(try avpipe(["frame", input, "--out", folder.file("x.png")]).status == 64)
        #expect(try avpipe(["frame", input, "--at", "1", "--out", folder.file("x.jpg")]).status == 64)
    }
}
