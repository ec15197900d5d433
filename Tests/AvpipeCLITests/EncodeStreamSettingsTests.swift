import Foundation
import Testing
import TestSupport

/// What `avpipe encode` states about the stream it writes, against ffmpeg's output of the same
/// input: the frame rate a raw `.h264` declares (its only timing), the field order of interlaced
/// pictures; and an encoder option's refused value, named.
@Suite struct EncodeStreamSettingsTests {
    /// Stream facts as ffprobe reads them (`-count_frames`: a raw stream's pictures are counted).
    static func stream(_ path: String, _ entries: String) throws -> [String: String] {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                    "-show_entries", "stream=\(entries)", "-of", "default=nw=1", path])
        guard result.status == 0 else { throw TestFailure("ffprobe \(path): \(result.stderrText)") }
        return Dictionary(result.stdoutText.split(separator: "\n").compactMap { line in
            line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
        }, uniquingKeysWith: { $1 })
    }

    static func duration(_ path: String) throws -> Double { try #require(try Probe.run(path).duration) }

    /// A raw `.h264` from a Matroska file (millisecond clock) and from a variable-rate MP4 (1/15360
    /// clock, 30 then 15 pictures a second) is ffmpeg's, byte for byte with one thread: its SPS
    /// states the stream's rate (25, 30), not its container's clock (1000, 15360), with pictures
    /// repeated onto that rate as ffmpeg does; muxed back by `avpipe mux`, it lasts as long as the source.
    @Test(arguments: ["cfr.mkv", "vfr.mp4"])
    func rawH264FromAnyContainerStatesTheStreamsRate(_ name: String) throws {
        let folder = TemporaryDirectory()
        let input = folder.file(name)
        let vfr = name.hasPrefix("vfr")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(vfr ? 30 : 25):duration=2"]
                                + (vfr ? ["-vf", "setpts='if(lt(N,30),N/30,1+(N-30)/15)/TB'", "-fps_mode", "passthrough"] : [])
                                + ["-c:v", "libx264", "-preset", "ultrafast", input])
        try EncodeVideoCLITests.run(["encode", "--in", input, "--out", folder.file("o.h264"), "--preset", "veryfast", "--threads", "1"])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "veryfast", "-threads", "1",
                                 "-f", "h264", folder.file("ffmpeg.h264")])
        let ours = try Self.stream(folder.file("o.h264"), "r_frame_rate,nb_read_frames")
        let theirs = try Self.stream(folder.file("ffmpeg.h264"), "r_frame_rate,nb_read_frames")
        // The SPS states the track's rate, not the container's clock (1000 or 15360): ffprobe 5.1
        // reads it as 25/1 (30/1), FFmpeg 7's parser as the field rate 50/1 (60/1).
        let rates = vfr ? ["30/1", "60/1"] : ["25/1", "50/1"]
        #expect(ours == theirs && rates.contains(theirs["r_frame_rate"] ?? ""), "ours \(ours), ffmpeg's \(theirs)")
        let oursBytes = try fileBytes(folder.file("o.h264")), theirBytes = try fileBytes(folder.file("ffmpeg.h264"))
        let same = oursBytes.count > 1000 && oursBytes == theirBytes  // compared outside #expect, which would print both
        #expect(same, "\(EncodeVideoCLITests.difference(oursBytes, theirBytes))")

        try EncodeVideoCLITests.run(["mux", "--video", folder.file("o.h264"), "--out", folder.file("muxed.mp4")])
        let source = try Self.duration(input), muxed = try Self.duration(folder.file("muxed.mp4"))
        #expect(abs(muxed - source) < 0.1, "muxed \(muxed) s from a \(source) s source")
    }

    /// Interlaced MPEG-2 in MPEG-TS (top or bottom field first) encoded to H.264 in Matroska: the
    /// output states the field order ffmpeg's does for the same encode (`tb`, `bt`), not progressive.
    @Test(arguments: [("1", "tb"), ("0", "bt")])
    func interlacedPicturesKeepTheirFieldOrder(_ topFirst: String, _ expected: String) throws {
        let folder = TemporaryDirectory()
        let input = folder.file("interlaced.ts")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                                 "-c:v", "mpeg2video", "-flags", "+ilme+ildct", "-top", topFirst, "-q:v", "4", input])
        try EncodeVideoCLITests.run(["encode", "--in", input, "--out", folder.file("o.mkv"), "--preset", "ultrafast"])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "ultrafast", folder.file("ffmpeg.mkv")])
        let ours = try Self.stream(folder.file("o.mkv"), "field_order")["field_order"]
        let theirs = try Self.stream(folder.file("ffmpeg.mkv"), "field_order")["field_order"]
        #expect(ours == theirs && theirs == expected, "ours \(ours ?? "none"), ffmpeg's \(theirs ?? "none")")
    }

    /// A value the encoder's option refuses (a number that is not one) is named with its option,
    /// as the other refusals are, and nothing is written.
    @Test func aRefusedEncoderOptionValueIsNamed() throws {
        let folder = TemporaryDirectory()
        let input = try EncodeVideoCLITests.y4m(folder.file("in.y4m"), seconds: 1)
        let result = try avpipe(["encode", "--in", input, "--out", folder.file("o.mp4"), "--encoder-option", "rc-lookahead=abc"])
        #expect(result.status == 64, "\(result.stderrText)")
        #expect(result.stderrText.contains("invalid value 'abc' for encoder option 'rc-lookahead'"), "\(result.stderrText)")
        #expect(folder.contents() == ["in.y4m"], "left behind: \(folder.contents())")
    }
}
