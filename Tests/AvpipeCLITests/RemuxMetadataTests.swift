import Foundation
import Testing
import TestSupport

/// Remux keeps what `ffmpeg -c copy` keeps: the display matrix (a portrait phone clip stays
/// upright), the file's tags and each track's tags and language. `--no-metadata` drops the tags
/// but never the rotation.
@Suite struct RemuxMetadataTests {
    /// Display matrix, tags and languages as ffprobe reports them.
    struct Facts: Equatable {
        var displayMatrix: [String] = []
        var formatTags: [String: String] = [:]
        var streamTags: [[String: String]] = []
    }

    static func facts(_ path: String) throws -> Facts {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-of", "json", "-show_streams", "-show_format", path])
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        var facts = Facts()
        let streams = json["streams"] as? [[String: Any]] ?? []
        for stream in streams {
            facts.streamTags.append(stream["tags"] as? [String: String] ?? [:])
            for side in stream["side_data_list"] as? [[String: Any]] ?? [] {
                if let matrix = side["displaymatrix"] as? String { facts.displayMatrix.append(matrix) }
            }
        }
        facts.formatTags = (json["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        facts.formatTags["encoder"] = nil  // each muxer names itself
        return facts
    }

    @Test func aPortraitClipKeepsRotationTagsAndLanguagesAsFFmpegDoes() throws {
        let folder = TemporaryDirectory()
        try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1, extraArguments: [
            "-metadata", "title=Holiday", "-metadata", "artist=Someone", "-metadata", "date=2026",
            "-metadata:s:v", "language=fra", "-metadata:s:a", "language=eng"])
        // A phone stores a portrait clip as landscape pictures plus a 90° display matrix.
        try MediaFactory.rotated(folder.file("plain.mp4"), degrees: 90, to: folder.file("portrait.mp4"))
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("portrait.mp4"), "-c", "copy", folder.file("ffmpeg.mp4")])
        let result = try avpipe(["remux", folder.file("portrait.mp4"), folder.file("ours.mp4")])
        #expect(result.status == 0, "\(result.stderrText)")

        let source = try Self.facts(folder.file("portrait.mp4"))
        let ours = try Self.facts(folder.file("ours.mp4")), theirs = try Self.facts(folder.file("ffmpeg.mp4"))
        #expect(source.displayMatrix.count == 1, "the generated clip must carry a display matrix")
        #expect(source.formatTags["title"] == "Holiday")
        #expect(ours == theirs)
        #expect(ours.displayMatrix == source.displayMatrix)
        #expect(ours.streamTags.map { $0["language"] } == ["fra", "eng"])

        let bare = try avpipe(["remux", folder.file("portrait.mp4"), folder.file("bare.mp4"), "--no-metadata"])
        #expect(bare.status == 0, "\(bare.stderrText)")
        let bareFacts = try Self.facts(folder.file("bare.mp4"))
        #expect(bareFacts.displayMatrix == source.displayMatrix, "rotation is how to show the picture, not a tag")
        #expect(bareFacts.formatTags["title"] == nil && bareFacts.formatTags["artist"] == nil)
        #expect(bareFacts.streamTags.allSatisfy { $0["language"] == nil || $0["language"] == "und" })
    }

    /// ffmpeg drops `creation_time` when it copies; avpipe keeps when the clip was shot.
    static func withoutCreationTime(_ facts: Facts) -> Facts {
        var facts = facts
        facts.formatTags["creation_time"] = nil
        facts.streamTags = facts.streamTags.map { $0.filter { $0.key != "creation_time" } }
        return facts
    }

    /// Media3's rotate-and-reflect sample: a transpose matrix (90° plus a mirror) survives as is.
    @Test func aMirroredMatrixFromTheCorpusSurvives() throws {
        guard Locations.corpusAvailable else { print("notice: ../shared/corpus absent; corpus remux case skipped"); return }
        let folder = TemporaryDirectory()
        let input = Locations.corpusFile("androidx__sample_rotate_and_reflect.mp4")
        #expect(try avpipe(["remux", input, folder.file("ours.mp4")]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", folder.file("ffmpeg.mp4")])
        let ours = try Self.facts(folder.file("ours.mp4"))
        #expect(ours.displayMatrix == (try Self.facts(input)).displayMatrix)
        #expect(Self.withoutCreationTime(ours) == Self.withoutCreationTime(try Self.facts(folder.file("ffmpeg.mp4"))))
        let source = try Self.facts(input)
        #expect(source.formatTags["creation_time"] != nil && ours.formatTags["creation_time"] == source.formatTags["creation_time"])
    }
}
