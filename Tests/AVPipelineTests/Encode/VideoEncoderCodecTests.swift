import Foundation
import Testing
import TestSupport
import AVPipeline

/// `VideoEncoder` beyond H.264's defaults: HEVC/VP9/AV1 streams ffmpeg decodes, the VBV rate on a
/// busy picture, and the quality of the result against its source.
@Suite struct VideoEncoderCodecTests {
    /// Fast settings per encoder (a 320x240 second must not take long).
    static func fastOptions(_ encoder: String) -> VideoEncoderOptions {
        switch encoder {
        case "libx265": .init(encoder: encoder, preset: "ultrafast", encoderOptions: ["x265-params": "log-level=error"], globalHeader: true)
        case "libvpx-vp9": .init(encoder: encoder, bitRate: 300_000, encoderOptions: ["deadline": "realtime", "cpu-used": "8"], globalHeader: true)
        case "libsvtav1": .init(encoder: encoder, preset: "12", globalHeader: true)
        case "libaom-av1": .init(encoder: encoder, encoderOptions: ["cpu-used": "8", "usage": "realtime"], globalHeader: true)
        default: .init(encoder: encoder, globalHeader: true)
        }
    }

    /// HEVC (tagged `hvc1` in MP4, as Apple's players need), VP9 in WebM and AV1 in Matroska:
    /// ffmpeg decodes every picture of each.
    @Test(arguments: [("hevc", "mp4"), ("vp9", "webm"), ("av1", "mkv")])
    func otherCodecsDecodeInFFmpeg(codecName: String, container: String) async throws {
        guard let codec = Codec(name: codecName), let encoder = VideoEncoderOptions.encoderName(for: codec) else {
            print("notice: this FFmpeg has no \(codecName) encoder; skipped")
            return
        }
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "testsrc2=size=320x240:rate=25:duration=1")
        let output = folder.file("out.\(container)")
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(Self.fastOptions(encoder)), to: output)
        let stream = try VideoOracle.videoStream(output)
        #expect(stream["codec_name"] as? String == codecName, "\(encoder): \(stream["codec_name"] ?? "none")")
        if container == "mp4" { #expect(stream["codec_tag_string"] as? String == "hvc1") }
        let decoded = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", output, "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        #expect(decoded.status == 0, "\(decoded.stderrText)")
        let pictures = decoded.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(pictures == 25, "\(encoder): ffmpeg decoded \(pictures) of 25 pictures")
    }

    /// VBV (`bitRate` = `maxRate` 500 kb/s, a 500 kb buffer) on noise no rate is enough for: after
    /// the first second (the start may spend the buffer's initial fill), ffprobe's packet sizes
    /// give a rate within 15 % of 500 kb/s; and the whole never exceeds what the buffer allows.
    @Test func vbvKeepsTheRateOnABusyPicture() async throws {
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "testsrc2=size=320x240:rate=25:duration=4", extra: ["-vf", "noise=alls=40:allf=t"])
        let output = folder.file("out.mp4")
        let options = VideoEncoderOptions(preset: "veryfast", bitRate: 500_000, maxRate: 500_000, bufferSize: 500_000, globalHeader: true)
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(options), to: output)
        let packets = try Probe.packets(output, stream: "v:0").compactMap { packet -> (time: Double, bits: Int)? in
            guard let dts = (packet["dts_time"] as? String).flatMap(Double.init),
                  let size = (packet["size"] as? String).flatMap({ Int($0) }) else { return nil }
            return (dts, size * 8)
        }
        #expect(packets.count == 100)
        let steady = packets.filter { $0.time >= 1 - 1e-6 }
        let rate = Double(steady.map(\.bits).reduce(0, +)) / (Double(steady.count) / 25)
        #expect(abs(rate - 500_000) <= 75_000, "\(Int(rate)) b/s after the first second")
        let total = packets.map(\.bits).reduce(0, +)
        #expect(total <= 500_000 * 4 + 500_000, "\(total) bits in 4 s")
    }

    /// Quality: the decoded result against its source at crf 23 is at least 35 dB PSNR (ffmpeg's
    /// `psnr` filter), which a wrong size, shifted picture or colour would fall far below.
    @Test func psnrAgainstTheSourceIsAboveTheFloor() async throws {
        let folder = TemporaryDirectory()
        let input = try VideoOracle.y4m(folder.file("in.y4m"), "testsrc2=size=320x240:rate=25:duration=2")
        let output = folder.file("out.mp4")
        try await VideoOracle.mux(try VideoOracle.pictures(input).encodeVideo(.init(preset: "veryfast", crf: 23, globalHeader: true)), to: output)
        let result = try Subprocess.run("ffmpeg", ["-i", output, "-i", input, "-lavfi", "psnr", "-f", "null", "-"])
        let line = result.stderrText.split(separator: "\n").first { $0.contains("PSNR") && $0.contains("average:") } ?? ""
        let average = line.split(separator: " ").first { $0.hasPrefix("average:") }.flatMap { Double($0.dropFirst("average:".count)) }
        #expect(result.status == 0)
        #expect((average ?? 0) >= 35, "\(line)")
    }
}
