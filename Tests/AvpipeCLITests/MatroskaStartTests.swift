import Foundation
import Testing
import TestSupport

/// An encode into Matroska starts its audio and video where ffmpeg's does: every track moves later
/// by the earliest one's lead (the AAC priming) in the container's milliseconds, not rounded to a
/// whole frame of the video encoder's time base. Oracle: ffprobe's start_time of each stream in
/// `ffmpeg -i IN OUT.mkv` (same codecs) against ours, same input.
@Suite struct MatroskaStartTests {
    /// Where each stream of `path` starts (ffprobe's start_time), video minus audio.
    static func videoLead(_ path: String) throws -> Double {
        let probe = try Probe.run(path)
        let start = { (kind: String) throws -> Double in
            try #require(probe.streams.first { $0["codec_type"] as? String == kind }.flatMap { ($0["start_time"] as? String).flatMap(Double.init) })
        }
        return try start("video") - start("audio")
    }

    @Test(arguments: ["mp4", "ts"])
    func matroskaStartsAudioAndVideoWhereFFmpegDoes(_ kind: String) throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.\(kind)")
        // An H.264 (B-frames) + AAC MP4, or an interlaced MPEG-2 + MP2 transport stream whose audio starts first.
        let codecs = kind == "mp4" ? ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"]
                                   : ["-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1", "-c:a", "mp2"]
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=2", "-f", "lavfi", "-i", "sine=440:d=2:sample_rate=48000"]
                                + codecs + [input])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", folder.file("ffmpeg.mkv")])
        // veryfast, unlike ultrafast, makes B-frames: the video's first picture is shown after it is decoded.
        let run = try avpipe(["encode", "--in", input, "--out", folder.file("ours.mkv"), "--preset", "veryfast"])
        #expect(run.status == 0, "\(run.stderrText)")
        let ours = try Self.videoLead(folder.file("ours.mkv")), theirs = try Self.videoLead(folder.file("ffmpeg.mkv"))
        #expect(abs(ours - theirs) < 0.0015, "video starts \(ours) s after the audio, in ffmpeg's \(theirs) s")
    }
}
