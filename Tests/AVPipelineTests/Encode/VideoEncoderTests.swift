import Foundation
import Testing
import TestSupport
import AVPipeline

/// `VideoEncoder`: bytes against the ffmpeg CLI with one encoder thread, pictures a program makes
/// itself, and the settings' checks.
@Suite struct VideoEncoderTests {
    /// A Y4M test picture sequence made by ffmpeg's `testsrc2` (moving, so the encoder has work).
    static func y4m(_ path: String, size: String = "320x240", rate: Int = 25, seconds: Double = 2) throws -> String {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)",
                                 "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path])
        return path
    }

    /// The pictures of `path`'s first video track, decoded.
    static func pictures(_ path: String) throws -> VideoDecoder<DemuxedVideoTrack, AnyVideoCodec> {
        try Demuxer(path: path).videoTrack().decodeVideo()
    }

    @Test func oneThreadH264IsFFmpegsByteForByte() async throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"))
        let ours = folder.file("ours.h264"), theirs = folder.file("ffmpeg.h264")
        try await Self.pictures(input).encodeVideo(.init(preset: "veryfast", crf: 23, threads: 1)).writeRawVideo(to: ours)
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
                                 "-threads", "1", "-f", "h264", theirs])
        let a = try fileBytes(ours), b = try fileBytes(theirs)
        #expect(a.count > 1000)
        #expect(a == b, "ours \(a.count) bytes, ffmpeg's \(b.count)")
    }
}
