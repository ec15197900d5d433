import Foundation
import Testing
import TestSupport

/// A stream copy keeps the input's codec tag where the target takes it for that codec (HEVC
/// tagged `hvc1`, which Apple's players require, stays `hvc1` instead of the muxer's default
/// `hev1`), and lets the muxer choose where the tag means something else there: the tags are
/// those of `ffmpeg -c copy` into the same container.
@Suite struct CopyCodecTagTests {
    /// Each stream's `codec_tag_string`, as ffprobe reads it.
    static func tags(_ path: String) throws -> [String] {
        try Probe.run(path).streams.map { "\($0["codec_tag_string"] ?? "")" }
    }

    @Test func hevcTaggedHvc1StaysHvc1AsWithFFmpegCopy() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("hvc1.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=1",
                                 "-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1", input])
        #expect(try Self.tags(input) == ["hvc1"], "the generated input must be tagged hvc1")
        for ext in ["mp4", "mov", "mkv", "ts"] {
            try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", folder.file("ffmpeg.\(ext)")])
            let result = try avpipe(["remux", input, folder.file("remux.\(ext)")])
            #expect(result.status == 0, "\(ext): \(result.stderrText)")
            #expect(try Self.tags(folder.file("remux.\(ext)")) == (try Self.tags(folder.file("ffmpeg.\(ext)"))), "remux to .\(ext)")
        }
        #expect(try Self.tags(folder.file("remux.mp4")) == ["hvc1"])
        let muxed = try avpipe(["mux", "--video", input, "--out", folder.file("mux.mp4")])
        #expect(muxed.status == 0, "\(muxed.stderrText)")
        #expect(try Self.tags(folder.file("mux.mp4")) == ["hvc1"])
        // Through a container that keeps no tag (Matroska), the muxer's default comes back, as with ffmpeg.
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("ffmpeg.mkv"), "-c", "copy", folder.file("again-ffmpeg.mp4")])
        #expect(try avpipe(["remux", folder.file("remux.mkv"), folder.file("again.mp4")]).status == 0)
        #expect(try Self.tags(folder.file("again.mp4")) == (try Self.tags(folder.file("again-ffmpeg.mp4"))))
    }

    /// An AVI's `XVID`: MOV's tag table knows it for MPEG-4 Part 2 and keeps it, MP4's does not, so
    /// the MP4 gets the muxer's own `mp4v` (never a tag its readers do not know); every copy decodes
    /// to the same pictures.
    @Test func aTagTheTargetDoesNotKnowForTheCodecIsReplaced() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("xvid.avi")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=1",
                                 "-c:v", "mpeg4", "-vtag", "XVID", input])
        #expect(try Self.tags(input) == ["XVID"])
        for ext in ["mp4", "mov", "mkv"] {
            try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c", "copy", folder.file("ffmpeg.\(ext)")])
            #expect(try avpipe(["remux", input, folder.file("remux.\(ext)")]).status == 0)
            #expect(try Self.tags(folder.file("remux.\(ext)")) == (try Self.tags(folder.file("ffmpeg.\(ext)"))), "remux to .\(ext)")
            #expect(try Self.framemd5(folder.file("remux.\(ext)")) == (try Self.framemd5(input)), "remux to .\(ext)")
        }
        #expect(try Self.tags(folder.file("remux.mp4")) == ["mp4v"] && (try Self.tags(folder.file("remux.mov"))) == ["XVID"])
    }

    /// The decoded pictures' hashes (ffmpeg's framemd5, hashes only).
    static func framemd5(_ path: String) throws -> [String] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not decode \(path): \(result.stderrText)") }
        return result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }
}
