import Foundation
import Testing
import TestSupport

/// `avpipe encode` making video: ffmpeg's bytes with one encoder thread, every picture once at its
/// time, keyframes where asked and where HLS segments begin, and clean refusals.
@Suite struct EncodeVideoCLITests {
    /// A moving test picture as Y4M (what the series' camera gives: raw pictures at a rate).
    static func y4m(_ path: String, seconds: Double = 2, rate: Int = 25) throws -> String {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=\(rate):duration=\(seconds)",
                                 "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path])
        return path
    }

    @discardableResult
    static func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ProcessResult {
        let result = try avpipe(arguments)
        #expect(result.status == 0, "avpipe \(arguments.joined(separator: " ")): \(result.stderrText)", sourceLocation: sourceLocation)
        return result
    }

    /// Where two byte strings first differ, short enough to read in a failure (not the whole arrays).
    static func difference<C: Collection>(_ ours: C, _ theirs: C) -> String where C.Element == UInt8 {
        let first = zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        return "ours \(ours.count) bytes, ffmpeg's \(theirs.count), first difference at \(first.map(String.init) ?? "the shorter one's end")"
    }

    /// The video of `path` as an Annex B stream, as ffmpeg extracts it.
    static func annexB(_ path: String) throws -> Data {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy",
                                                   "-bsf:v", "h264_mp4toannexb", "-f", "h264", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not read \(path): \(result.stderrText)") }
        return result.stdout
    }

    /// Each video packet's presentation time and keyframe flag, in presentation order.
    static func pictures(_ path: String) throws -> [(time: Double, key: Bool)] {
        try Probe.packets(path, stream: "v:0").compactMap { packet -> (Double, Bool)? in
            guard let time = (packet["pts_time"] as? String).flatMap(Double.init) else { return nil }
            return (time, (packet["flags"] as? String)?.hasPrefix("K") == true)
        }.sorted { $0.0 < $1.0 }
    }

    @Test func y4mToRawH264IsFFmpegsByteForByte() throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"))
        try Self.run(["encode", "--in", input, "--out", folder.file("o.h264"), "--preset", "veryfast", "--crf", "23", "--threads", "1"])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-threads", "1",
                                 "-f", "h264", folder.file("ffmpeg.h264")])
        let ours = try fileBytes(folder.file("o.h264")), theirs = try fileBytes(folder.file("ffmpeg.h264"))
        let same = ours.count > 1000 && ours == theirs  // compared outside #expect, which would print both
        #expect(same, "\(Self.difference(ours, theirs))")
        // Parameter sets before every keyframe, as a raw stream needs (a reader may start at any).
        let scan = AnnexBScan(ours, hevc: false)
        #expect(scan.framingProblems.isEmpty && scan.keyframesMissingParameterSets(hevc: false).isEmpty)
    }

    /// The series' raw files: an elementary stream with parameter sets before every keyframe, so a
    /// reader may start at any of them; another implementation (GStreamer's parser and OpenH264 /
    /// libde265) decodes every picture at the source's size.
    @Test(arguments: [("o.h264", false), ("o.264", false), ("o.h265", true), ("o.265", true), ("o.hevc", true)])
    func annexBOutputsRepeatParameterSetsAndDecodeInGStreamer(_ name: String, _ hevc: Bool) throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"))
        try Self.run(["encode", "--in", input, "--out", folder.file(name), "--gop", "10", "--preset", "veryfast"]
                     + (hevc ? ["--encoder-option", "x265-params=keyint=10"] : []))
        let scan = AnnexBScan(try fileBytes(folder.file(name)), hevc: hevc)
        #expect(scan.framingProblems.isEmpty, "\(scan.framingProblems)")
        #expect(scan.keyframesMissingParameterSets(hevc: hevc).isEmpty)
        let keyTypes: Set<Int> = hevc ? Set(16...23) : [5]
        #expect(scan.nalTypes.filter(keyTypes.contains).count >= 5, "50 pictures with --gop 10 have 5 keyframes")
        let codec = try Probe.run(folder.file(name)).string("codec_name")
        #expect(codec == (hevc ? "hevc" : "h264"))
        let decoder = hevc ? "libde265dec" : "openh264dec"
        guard (try? Subprocess.run("gst-inspect-1.0", [decoder]))?.status == 0 else {
            print("notice: GStreamer's \(decoder) unavailable; skipping the independent decode of \(name)")
            return
        }
        let raw = folder.file("gst.yuv")
        let result = try Subprocess.run("gst-launch-1.0", ["-q", "filesrc", "location=\(folder.file(name))", "!", hevc ? "h265parse" : "h264parse",
                                                           "!", decoder, "!", "videoconvert", "!", "video/x-raw,format=I420",
                                                           "!", "filesink", "location=\(raw)"])
        #expect(result.status == 0, "\(decoder): \(result.stderrText)")
        let pictures = Double(try fileBytes(raw).count) / Double(320 * 240 * 3 / 2)
        #expect(pictures == 50, "GStreamer decoded \(pictures) pictures of 320x240, not 50")
    }

    @Test func movieWithDefaultsIsFFmpegsVideoByteForByte() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        try Self.run(["encode", "--in", input, "--out", folder.file("o.mp4"), "--threads", "1"])
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-threads", "1", folder.file("ffmpeg.mp4")])
        let ours = try Self.annexB(folder.file("o.mp4")), theirs = try Self.annexB(folder.file("ffmpeg.mp4"))
        let same = ours.count > 1000 && ours == theirs  // compared outside #expect, which would print both
        #expect(same, "\(Self.difference(ours, theirs))")
        let probe = try Probe.run(folder.file("o.mp4"))
        #expect(probe.streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(try Self.pictures(folder.file("o.mp4")).count == 50)
    }

    /// A Matroska file whose pictures come irregularly (25 then 10 per second): ffmpeg's default
    /// constant-rate MP4 would repeat pictures; each must be encoded once, at its own time.
    @Test func variableFrameRateKeepsEachPictureOnceAtItsTime() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("vfr.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                                 "-vf", "setpts='if(lt(N,25),N/25,1+(N-25)/10)/TB'", "-fps_mode", "passthrough",
                                 "-c:v", "libx264", "-preset", "ultrafast", input])
        for output in ["o.mp4", "o.mkv"] {
            try Self.run(["encode", "--in", input, "--out", folder.file(output), "--preset", "ultrafast"])
            let source = try Self.pictures(input).map(\.time), encoded = try Self.pictures(folder.file(output)).map(\.time)
            #expect(encoded.count == source.count, "\(output): \(encoded.count) pictures, source \(source.count)")
            #expect(zip(source, encoded).allSatisfy { abs(($0 - source[0]) - ($1 - encoded[0])) < 0.0015 }, "\(output): \(encoded) vs \(source)")
        }
    }

    /// Sound that starts half a second after the pictures still does after the encode.
    @Test func audioVideoStartOffsetIsKept() throws {
        let folder = TemporaryDirectory()
        let input = folder.file("offset.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                                 "-itsoffset", "0.5", "-f", "lavfi", "-i", "sine=frequency=440:duration=2.5",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", input])
        let offset = { (path: String) throws -> Double in
            let probe = try Probe.run(path)
            let start = { (kind: String) in
                probe.streams.first { $0["codec_type"] as? String == kind }.flatMap { ($0["start_time"] as? String).flatMap(Double.init) }
            }
            return try #require(start("audio")) - #require(start("video"))
        }
        for output in ["o.mp4", "o.mkv", "o.ts"] {
            try Self.run(["encode", "--in", input, "--out", folder.file(output), "--preset", "ultrafast"])
            let source = try offset(input), encoded = try offset(folder.file(output))
            #expect(abs(source - 0.5) < 0.03 && abs(encoded - source) < 0.025, "\(output): audio starts \(encoded) s after video, source \(source) s")
        }
    }

    @Test func gopPutsKeyframesEveryNPictures() throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"))
        try Self.run(["encode", "--in", input, "--out", folder.file("o.mp4"), "--gop", "10", "--preset", "veryfast",
                      "--encoder-option", "sc_threshold=0"])
        let keys = try Self.pictures(folder.file("o.mp4")).enumerated().filter { $0.element.key }.map(\.offset)
        #expect(keys == Array(stride(from: 0, to: 50, by: 10)))
    }

    /// A copy can cut HLS only at the source's keyframes; an encode puts one at every segment start,
    /// so segments last the asked duration exactly and each begins with a keyframe.
    @Test func hlsSegmentsStartWithKeyframesAtTheAskedDuration() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4, videoArguments: ["-g", "250"])
        try Self.run(["encode", "--in", input, "--out", folder.file("hls/index.m3u8"), "--segment", "1", "--preset", "veryfast"])
        let playlist = try String(contentsOfFile: folder.file("hls/index.m3u8"), encoding: .utf8)
        let durations = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst(8).split(separator: ",")[0]) }
        #expect(durations.count == 4 && durations.allSatisfy { abs($0 - 1) < 0.001 }, "\(durations)")
        let segments = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }
        for segment in segments {
            let first = try Probe.packets(folder.file("hls/\(segment)"), stream: "v:0").first
            #expect((first?["flags"] as? String)?.hasPrefix("K") == true, "\(segment) does not start with a keyframe")
        }
    }

    @Test func startAndDurationCutToThePicture() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4)
        try Self.run(["encode", "--in", input, "--out", folder.file("o.mp4"), "--start", "1.2", "--duration", "2", "--preset", "veryfast"])
        let pictures = try Self.pictures(folder.file("o.mp4"))
        #expect(pictures.count == 50, "\(pictures.count) pictures for 2 s at 25 fps")
        #expect(pictures.first?.time == 0)
        // The first picture is the source's at 1.2 s (decoded by ffmpeg, compared as pixels).
        let ours = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file("o.mp4"), "-frames:v", "1", "-f", "rawvideo", "-"]).stdout
        let theirs = try Subprocess.run("ffmpeg", ["-v", "error", "-i", input, "-ss", "1.2", "-frames:v", "1", "-f", "rawvideo", "-"]).stdout
        let ssd = zip(ours, theirs).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(max(1, ours.count))
        #expect(ours.count == theirs.count && ssd < 20, "mean squared difference \(ssd)")
    }

    @Test func hevcInMP4IsTaggedHvc1AndWebMIsVP9WithOpus() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let quiet = try Self.run(["encode", "--in", input, "--out", folder.file("o.mp4"), "--video-codec", "hevc"])
        // x265 logs on stderr itself; it follows avpipe's quiet FFmpeg log, and speaks with --verbose.
        #expect(quiet.stderrText.isEmpty, "\(quiet.stderrText)")
        let verbose = try Self.run(["encode", "--in", input, "--out", folder.file("v.mp4"), "--video-codec", "hevc", "--verbose"])
        #expect(verbose.stderrText.contains("x265 [info]"))
        // So does SVT-AV1 (its own log too), where this FFmpeg has it.
        if try Subprocess.run("ffmpeg", ["-hide_banner", "-encoders"]).stdoutText.contains("libsvtav1") {
            let av1 = try Self.run(["encode", "--in", input, "--out", folder.file("o.mkv"), "--video-codec", "libsvtav1", "--preset", "12"])
            // Its warnings still come (SVT-AV1 2.x: "Preset M12 is mapped to M11"), its report does not.
            #expect(!av1.stderrText.contains("[info]"), "\(av1.stderrText)")
        }
        let hevc = try Probe.run(folder.file("o.mp4"))
        #expect(hevc.string("codec_name") == "hevc" && hevc.string("codec_tag_string") == "hvc1")
        try Self.run(["encode", "--in", input, "--out", folder.file("o.webm"), "--crf", "40", "--encoder-option", "deadline=realtime"])
        let webm = try Probe.run(folder.file("o.webm"))
        #expect(webm.streams.map { $0["codec_name"] as? String } == ["vp9", "opus"])
        #expect(try Self.pictures(folder.file("o.webm")).count == 25)
    }

    @Test func rotationIsKept() throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1)
        try MediaFactory.rotated(plain, degrees: 90, to: folder.file("rotated.mp4"))
        try Self.run(["encode", "--in", folder.file("rotated.mp4"), "--out", folder.file("o.mp4"), "--preset", "ultrafast"])
        let rotation = { (path: String) throws -> String in
            try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream_side_data=rotation",
                                           "-of", "csv=p=0", path]).stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try rotation(folder.file("o.mp4")) == rotation(folder.file("rotated.mp4")))
        #expect(try !rotation(folder.file("o.mp4")).isEmpty)
    }

    @Test func oddSizeIsEncodedAtTheNearestEvenOneWithANotice() throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"), seconds: 1)
        let result = try Self.run(["encode", "--in", input, "--out", folder.file("o.mp4"), "--width", "161", "--height", "121"])
        #expect(result.stderrText.contains("notice") && result.stderrText.contains("160x120"))
        let probe = try Probe.run(folder.file("o.mp4"))
        #expect(probe.int("width") == 160 && probe.int("height") == 120)
        try Self.run(["encode", "--in", input, "--out", folder.file("half.mp4"), "--width", "160", "-y"])
        #expect(try Probe.run(folder.file("half.mp4")).int("height") == 120)
    }

    @Test(arguments: [
        (["--crf", "99"], 64), (["--gop", "0"], 64), (["--video-bitrate", "0"], 64), (["--width", "0"], 64),
        (["--preset", "nonsense"], 64), (["--encoder-option", "no-such-option=1"], 64), (["--maxrate", "1M"], 64),
        (["--video-codec", "no-such-encoder"], 69), (["--pixel-format", "nonsense"], 64),
    ] as [([String], Int32)])
    func badVideoSettingsFailCleanly(_ options: [String], _ code: Int32) throws {
        let folder = TemporaryDirectory()
        let input = try Self.y4m(folder.file("in.y4m"), seconds: 1)
        let result = try avpipe(["encode", "--in", input, "--out", folder.file("o.mp4")] + options)
        #expect(result.status == code, "\(options): \(result.stderrText)")
        #expect(result.stderrText.contains("avpipe: error:"))
        #expect(folder.contents() == ["in.y4m"], "left behind: \(folder.contents())")
    }

    @Test func helpSaysEncodeMakesVideo() throws {
        let help = try avpipe(["encode", "--help"]).stdoutText
        #expect(help.contains("H.264") && help.contains("--video-codec") && help.contains("--crf") && help.contains("movie.mp4"))
    }
}
