import Foundation
import Testing
import TestSupport

/// `avpipe demux` against the ffmpeg CLI: the outputs must be the same bytes.
@Suite struct DemuxCLITests {
    static func ffmpegAudio(_ input: String, _ output: String, track: Int = 0) throws {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-i", input, "-map", "0:a:\(track)", "-c:a", "copy", "-f", "adts", output])
    }

    static func ffmpegVideo(_ input: String, _ output: String, hevc: Bool) throws {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-i", input, "-an", "-c:v", "copy",
                                 "-bsf:v", hevc ? "hevc_mp4toannexb" : "h264_mp4toannexb", "-f", hevc ? "hevc" : "h264", output])
    }

    static func expectSameBytes(_ ours: String, _ reference: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let a = try fileBytes(ours), b = try fileBytes(reference)
        #expect(!b.isEmpty, sourceLocation: sourceLocation)
        #expect(a.count == b.count, "\(ours): \(a.count) bytes vs ffmpeg's \(b.count)", sourceLocation: sourceLocation)
        #expect(a == b, "\(ours) differs from ffmpeg's output", sourceLocation: sourceLocation)
    }

    enum Case: String, CaseIterable {
        case h264MP4, hevcHvc1, hevcHev1, h264MOV, h264MKV
        var ext: String { switch self { case .h264MOV: "mov"; case .h264MKV: "mkv"; default: "mp4" } }
        var hevc: Bool { self == .hevcHvc1 || self == .hevcHev1 }
        var videoArguments: [String] {
            switch self {
            case .hevcHvc1: ["-x265-params", "log-level=error", "-tag:v", "hvc1"]
            case .hevcHev1: ["-x265-params", "log-level=error", "-tag:v", "hev1"]
            default: ["-bf", "2", "-g", "12"]
            }
        }
    }

    @Test(arguments: Case.allCases)
    func outputIsByteIdenticalToFFmpeg(_ testCase: Case) throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.\(testCase.ext)"), seconds: 2,
                                         videoCodec: testCase.hevc ? "libx265" : "libx264",
                                         videoArguments: testCase.videoArguments + ["-g", "12"])
        let videoName = testCase.hevc ? "out.h265" : "out.h264"
        let result = try avpipe(["demux", input, "--audio", folder.file("out.aac"), "--video", folder.file(videoName)])
        #expect(result.status == 0, "\(result.stderrText)")
        try Self.ffmpegAudio(input, folder.file("ref.aac"))
        try Self.ffmpegVideo(input, folder.file("ref.video"), hevc: testCase.hevc)
        try Self.expectSameBytes(folder.file("out.aac"), folder.file("ref.aac"))
        try Self.expectSameBytes(folder.file(videoName), folder.file("ref.video"))

        let scan = AnnexBScan(try fileBytes(folder.file(videoName)), hevc: testCase.hevc)
        #expect(scan.framingProblems.isEmpty, "\(scan.framingProblems)")
        #expect(scan.keyframesMissingParameterSets(hevc: testCase.hevc).isEmpty)
        let keyTypes: Set<Int> = testCase.hevc ? Set(16...23) : [5]
        #expect(scan.nalTypes.filter(keyTypes.contains).count >= 2, "a 2 s stream with -g 12 has several keyframes")
        try Self.expectIndependentDecoderAccepts(folder.file(videoName), hevc: testCase.hevc, frames: 50)
    }

    /// GStreamer's parser + OpenH264 / libde265 decode the stream: another implementation reads it.
    static func expectIndependentDecoderAccepts(_ path: String, hevc: Bool, frames: Int) throws {
        let decoder = hevc ? "libde265dec" : "openh264dec"
        guard Subprocess.isAvailable("gst-launch-1.0"),
              (try? Subprocess.run("gst-inspect-1.0", [decoder]))?.status == 0 else {
            print("notice: gst-launch-1.0 with \(decoder) unavailable; skipping the independent decode")
            return
        }
        let parser = hevc ? "h265parse" : "h264parse"
        let result = try Subprocess.run("gst-launch-1.0", ["-q", "filesrc", "location=\(path)", "!", parser, "!", decoder,
                                                           "!", "fakesink", "signal-handoffs=false", "silent=true"])
        #expect(result.status == 0, "\(decoder) rejected \(path): \(result.stderrText)")
    }

    @Test(arguments: ["androidx__sample.mp4", "mp4ff__h264.mp4", "mp4ff__hevc.mp4", "androidx__h265_bframes.mp4",
                      "androidx__sample_rotate_and_reflect.mp4", "muxjs__test-segment.ts"])
    func corpusVideoMatchesFFmpeg(_ name: String) throws {
        guard Locations.corpusAvailable else { return }
        let input = Locations.corpusFile(name)
        let folder = TemporaryDirectory()
        let hevc = name.contains("265") || name.contains("hevc")
        let output = folder.file(hevc ? "out.h265" : "out.h264")
        let result = try avpipe(["demux", input, "--video", output])
        #expect(result.status == 0, "\(result.stderrText)")
        try Self.ffmpegVideo(input, folder.file("ref"), hevc: hevc)
        try Self.expectSameBytes(output, folder.file("ref"))
        #expect(AnnexBScan(try fileBytes(output), hevc: hevc).keyframesMissingParameterSets(hevc: hevc).isEmpty)
    }

    @Test(arguments: ["androidx__sample.mp4", "androidx__bbb_1ch_16kHz_aac.mp4", "androidx__bbb_1ch_8kHz_aac_lc.m4a",
                      "androidx__sample.adts", "muxjs__test-aac-segment.aac", "muxjs__test-segment.ts",
                      "androidx__sample_fragmented.mp4"])
    func corpusAudioMatchesFFmpeg(_ name: String) throws {
        guard Locations.corpusAvailable else { return }
        let input = Locations.corpusFile(name)
        let folder = TemporaryDirectory()
        let result = try avpipe(["demux", input, "--audio", folder.file("out.aac")])
        #expect(result.status == 0, "\(result.stderrText)")
        try Self.ffmpegAudio(input, folder.file("ref.aac"))
        try Self.expectSameBytes(folder.file("out.aac"), folder.file("ref.aac"))
    }

    /// The HEVC slices of the MP4 come out in the order and sizes of mp4ff's own Annex B file.
    @Test func corpusHEVCMatchesMP4ffsAnnexBSlices() throws {
        guard Locations.corpusAvailable else { return }
        let folder = TemporaryDirectory()
        let output = folder.file("out.h265")
        #expect(try avpipe(["demux", Locations.corpusFile("mp4ff__hevc.mp4"), "--video", output]).status == 0)
        let ours = AnnexBScan(try fileBytes(output), hevc: true).nalTypes.filter { $0 < 32 }
        let theirs = AnnexBScan(try fileBytes(Locations.corpusFile("mp4ff__hevc.265")), hevc: true).nalTypes.filter { $0 < 32 }
        #expect(!ours.isEmpty && ours == theirs)
    }

    @Test func multipleAudioTracksFirstByDefaultOrChosen() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mkv"), seconds: 1, video: false, audioTracks: 3)
        #expect(try avpipe(["demux", input, "--audio", folder.file("default.aac")]).status == 0)
        #expect(try avpipe(["demux", input, "--audio", folder.file("second.aac"), "--audio-track", "1"]).status == 0)
        try Self.ffmpegAudio(input, folder.file("ref0.aac"), track: 0)
        try Self.ffmpegAudio(input, folder.file("ref1.aac"), track: 1)
        try Self.expectSameBytes(folder.file("default.aac"), folder.file("ref0.aac"))
        try Self.expectSameBytes(folder.file("second.aac"), folder.file("ref1.aac"))
        #expect(try fileBytes(folder.file("default.aac")) != (try fileBytes(folder.file("second.aac"))))
        let missing = try avpipe(["demux", input, "--audio", folder.file("x.aac"), "--audio-track", "3"])
        #expect(missing.status == 64, "\(missing.stderrText)")
        #expect(!fileExists(folder.file("x.aac")))
    }

    @Test func missingTracksAndMismatchedExtensionsFailCleanly() throws {
        let folder = TemporaryDirectory()
        let audioOnly = try DemuxMedia.movie(folder.file("a.m4a"), seconds: 1, video: false)
        let videoOnly = try DemuxMedia.movie(folder.file("v.mp4"), seconds: 1, audio: false)
        let noVideo = try avpipe(["demux", audioOnly, "--audio", folder.file("o1.aac"), "--video", folder.file("o1.h264")])
        #expect(noVideo.status == 66)
        #expect(noVideo.stderrText.contains("has no video track"))
        let noAudio = try avpipe(["demux", videoOnly, "--audio", folder.file("o2.aac")])
        #expect(noAudio.status == 66)
        #expect(noAudio.stderrText.contains("has no audio track"))
        let wrongExtension = try avpipe(["demux", videoOnly, "--video", folder.file("o3.h265")])
        #expect(wrongExtension.status == 64)
        #expect(wrongExtension.stderrText.contains(".h264"))
        let unknownExtension = try avpipe(["demux", videoOnly, "--video", folder.file("o4.mp4")])
        #expect(unknownExtension.status == 64)
        for result in [noVideo, noAudio, wrongExtension] {
            #expect(result.stderrText.split(separator: "\n").count == 1, "one line: \(result.stderrText)")
        }
        #expect(folder.contents() == ["a.m4a", "v.mp4"], "no output or temporary file may remain")
        // Video only / audio only outputs work.
        #expect(try avpipe(["demux", videoOnly, "--video", folder.file("ok.h264")]).status == 0)
        #expect(try avpipe(["demux", audioOnly, "--audio", folder.file("ok.aac")]).status == 0)
    }

    @Test func badInputsFailWithTypedErrorsAndNoOutput() throws {
        let folder = TemporaryDirectory()
        let good = try DemuxMedia.movie(folder.file("good.mp4"), seconds: 2, extraArguments: ["-movflags", "+faststart"])
        let bytes = try fileBytes(good)
        let mdat = bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("mdat".utf8) }!
        let moov = bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("moov".utf8) }!
        let inputs: [(String, [UInt8])] = [
            ("garbage.mp4", (0..<40_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }),
            ("cut-mdat.mp4", Array(bytes[..<(mdat + (bytes.count - mdat) / 2)])),
            ("cut-moov.mp4", Array(bytes[..<(moov + (mdat - moov) / 2)])),
            ("empty.mp4", []),
        ]
        for (name, content) in inputs {
            try Data(content).write(to: URL(fileURLWithPath: folder.file(name)))
        }
        try FileManager.default.removeItem(atPath: good)
        let unreadable = folder.file("unreadable.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: unreadable))
        chmod(unreadable, 0)
        var cases = inputs.map(\.0) + ["missing.mp4"]
        if getuid() != 0 { cases.append("unreadable.mp4") } else { print("notice: running as root; unreadable-file case skipped") }
        for name in cases {
            let out = folder.file("out-\(name).aac"), video = folder.file("out-\(name).h264")
            // A file cut inside its media data is a partial download: refused only with --strict
            // (SalvageCLITests covers the default, which keeps what is intact).
            let result = try avpipe(["demux", folder.file(name), "--audio", out, "--video", video, "--strict"])
            #expect(result.status == 66, "\(name): exit \(result.status): \(result.stderrText)")
            #expect(result.stderrText.hasPrefix("avpipe: error: "), "\(name): \(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(name): \(result.stderrText)")
            #expect(!fileExists(out) && !fileExists(video), "\(name) left output")
        }
        #expect(folder.contents().allSatisfy { !$0.hasPrefix(".") && !$0.hasPrefix("out-") }, "\(folder.contents())")
    }
}
