import Foundation
import Testing
import TestSupport
import AVPipeline

/// `VideoEncoder`'s timing: delay, keyframe positions, each source picture once at its own time
/// (variable rates too), and a constant output rate as ffmpeg's `fps` filter makes it.
@Suite struct VideoEncoderTimingTests {
    /// `tune: zerolatency`: the first packet comes out once the first picture went in (no picture
    /// of delay). x264's defaults hold pictures back (look-ahead, B-frames), so the count can tell.
    @Test(arguments: [true, false])
    func firstPacketDelay(zerolatency: Bool) async throws {
        let source = DrawnPictures(count: 60) { UInt8(16 + 3 * $0) }
        let encoder = try source.encodeVideo(.init(preset: "veryfast", tune: zerolatency ? "zerolatency" : nil))
        let first = try await encoder.next()
        #expect(first != nil)
        if zerolatency {
            #expect(source.pulled == 1, "pictures pulled before the first packet: \(source.pulled)")
        } else {
            #expect(source.pulled > 1, "pictures pulled before the first packet: \(source.pulled)")
        }
    }

    /// `keyframePictureInterval: 10` (x264's own scene cuts off): keyframes exactly at pictures 0, 10, 20…
    @Test func keyframeIntervalPlacesEveryKeyframe() async throws {
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "testsrc2=size=320x240:rate=25:duration=2")
        let output = folder.file("out.mp4")
        let options = VideoEncoderOptions(preset: "veryfast", keyframePictureInterval: 10, encoderOptions: ["sc_threshold": "0"], globalHeader: true)
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(options), to: output)
        let frames = try VideoOracle.frames(output)
        #expect(frames.count == 50)
        #expect(frames.indices.filter { frames[$0].key } == Array(stride(from: 0, to: frames.count, by: 10)))
    }

    /// `keyframeTimeInterval: 0.5 s` on 25 fps (a boundary every 12.5 pictures) with x264's long default
    /// gop: a keyframe at the first picture at or after every boundary, and nowhere else.
    @Test func keyframeEveryHalfSecondStartsEachSegment() async throws {
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "testsrc2=size=320x240:rate=25:duration=3")
        let output = folder.file("out.mp4")
        let options = VideoEncoderOptions(preset: "veryfast", keyframeTimeInterval: MediaTime(value: 1, timeBase: Rational(1, 2)),
                                          encoderOptions: ["sc_threshold": "0"], globalHeader: true)
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(options), to: output)
        let frames = try VideoOracle.frames(output)
        #expect(frames.count == 75)
        let end = frames.last?.time ?? 0
        let expected = stride(from: 0.0, through: end, by: 0.5).compactMap { boundary in
            frames.firstIndex { $0.time >= boundary - 1e-6 }
        }
        #expect(frames.indices.filter { frames[$0].key } == expected)
    }

    /// Irregularly timed Matroska sources (millisecond times): every picture is encoded once, at
    /// its own time (to the millisecond), as ffprobe reads source and result; none is added on a
    /// grid or dropped.
    @Test(arguments: [
        "settb=1/1000,setpts='(N*40+mod(N*7\\,13))/1000/TB'",         // jittered 25 fps (declared 25)
        "settb=1/1000,setpts='if(lt(N\\,25)\\,N/25\\,1+(N-25)/30)/TB'",  // 25 fps, then 30 (declared 25)
        "fps=30000/1001",                                                // 29.97 fps on Matroska's milliseconds
    ])
    func everySourcePictureOnceAtItsTime(timing: String) async throws {
        let folder = TemporaryDirectory()
        let (source, ours) = try await Self.encodeVFR(timing, as: "mkv", in: folder)
        #expect(source.count > 40)
        #expect(ours.count == source.count)
        Self.expectSameTimes(ours, source)
    }

    /// The same in MP4, where FFmpeg takes the declared rate (25) for the frame rate: the track's
    /// average rate, which differs from it, tells such a file from a constant-rate one (whose
    /// pictures ffmpeg's clock, the 1/25 grid, times exactly).
    @Test(arguments: [
        "settb=1/1000,setpts='(N*40+mod(N*7\\,13))/1000/TB'",
        "settb=1/1000,setpts='if(lt(N\\,25)\\,N/25\\,1+(N-25)/30)/TB'",
    ])
    func variableRateMP4KeepsItsTimes(timing: String) async throws {
        let folder = TemporaryDirectory()
        let (source, ours) = try await Self.encodeVFR(timing, as: "mp4", in: folder)
        #expect(ours.count == source.count)
        Self.expectSameTimes(ours, source)
    }

    /// testsrc2 retimed by `timing` into `container` (ffmpeg's encoder on a millisecond clock, so
    /// the times are not put back on a 1/25 grid), then encoded by us into the same container: the
    /// presentation times ffprobe reads from the source and from ours.
    static func encodeVFR(_ timing: String, as container: String, in folder: TemporaryDirectory) async throws -> ([Double], [Double]) {
        let input = folder.file("in.\(container)"), output = folder.file("out.\(container)")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-vf", timing,
                                 "-fps_mode", "passthrough", "-enc_time_base", "1:1000", "-c:v", "libx264", "-preset", "ultrafast",
                                 "-pix_fmt", "yuv420p", input])
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(.init(preset: "veryfast", globalHeader: true)), to: output)
        return (try VideoOracle.frames(input).map(\.time), try VideoOracle.frames(output).map(\.time))
    }

    static func expectSameTimes(_ ours: [Double], _ source: [Double], sourceLocation: SourceLocation = #_sourceLocation) {
        for (a, b) in zip(ours.sorted(), source.sorted()) where abs(a - b) > 0.001 {
            Issue.record("picture at \(a) s, the source's at \(b) s", sourceLocation: sourceLocation)
            return
        }
    }

    /// `frameRate: 10` from 25 fps (pictures dropped) and from 4 fps (repeated): the pictures and
    /// times ffmpeg's `fps=10` filter gives, to the end (each source picture has its own luma
    /// level, so which one fills a slot shows in the result); as many dropped and repeated as the
    /// filter reports.
    @Test(arguments: [(25, 4), (4, 25)])
    func constantFrameRatePicksWhatTheFPSFilterPicks(sourceRate: Int, levelStep: Int) async throws {
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "color=c=black:size=320x240:rate=\(sourceRate):duration=2,format=yuv420p,"
                                        + "geq=lum='16+\(levelStep)*N':cb=128:cr=128")
        let output = folder.file("out.mp4"), oracle = folder.file("fps.y4m")
        let filter = try Subprocess.run("ffmpeg", ["-v", "verbose", "-i", input, "-vf", "fps=10", "-f", "yuv4mpegpipe", oracle])
        let encoder = try VideoOracle.pictures(input).encodeVideo(.init(preset: "veryfast", crf: 12, frameRate: Rational(10, 1), globalHeader: true))
        try await VideoOracle.mux(encoder, to: output)
        // "[Parsed_fps_0 …] 50 frames in, 20 frames out; 30 frames dropped, 0 frames duplicated."
        // The last report: ffmpeg may configure the graph twice, the first one seeing no frame (CI: "0 frames in").
        let report = filter.stderrText.split(separator: "\n").last { $0.contains("frames dropped") }.map(String.init) ?? ""
        let counts = report.split(separator: ";").last?.split(separator: " ").compactMap { Int($0) } ?? []
        #expect(filter.status == 0 && counts.count == 2, "\(report)")
        #expect([encoder.droppedPictures, encoder.repeatedPictures] == counts, "ours dropped \(encoder.droppedPictures), repeated \(encoder.repeatedPictures); \(report)")
        let ours = try VideoOracle.frames(output).map(\.time), theirs = try VideoOracle.frames(oracle).map(\.time)
        #expect(ours.count == theirs.count, "\(ours.count) pictures, ffmpeg's fps filter \(theirs.count)")
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) < 0.001 }, "\(ours) vs \(theirs)")
        let levels = try VideoOracle.lumaMeans(output), expected = try VideoOracle.lumaMeans(oracle)
        #expect(levels.count == expected.count)
        #expect(zip(levels, expected).allSatisfy { abs($0 - $1) < 1.5 }, "\(levels.map { Int($0.rounded()) }) vs \(expected.map { Int($0.rounded()) })")
    }
}
