import Foundation
import Testing
import TestSupport
import AVPipeline

/// Inputs and oracles of the `VideoEncoder` tests: media made by ffmpeg, facts read back by
/// ffprobe and by ffmpeg's decoder (never by our own code).
enum VideoOracle {
    /// A Y4M of `filter` (a lavfi source, e.g. `testsrc2=size=320x240:rate=25:duration=2`), yuv420p.
    static func y4m(_ path: String, _ filter: String, extra: [String] = []) throws -> String {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", filter, "-pix_fmt", "yuv420p"] + extra
                                + ["-f", "yuv4mpegpipe", path])
        return path
    }

    /// The pictures of `path`'s first video track, decoded by us.
    static func pictures(_ path: String) throws -> VideoDecoder<DemuxedVideoTrack, AnyVideoCodec> {
        try Demuxer(path: path).videoTrack().decodeVideo()
    }

    /// Writes `video` into `path` (container from the extension) with our `Muxer`.
    static func mux<S: SampleSource>(_ video: S, to path: String) async throws where S.Buffer == EncodedVideoPacket<AnyVideoCodec> {
        let muxer = try Muxer(path: path)
        try muxer.addVideo(video)
        try await muxer.run()
    }

    /// ffmpeg's decoded pictures of `path`'s first video track, in presentation order: time in
    /// seconds, keyframe flag, picture type.
    static func frames(_ path: String) throws -> [(time: Double, key: Bool, type: String)] {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                    "frame=best_effort_timestamp_time,key_frame,pict_type", "-of", "json", path])
        guard result.status == 0, let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw TestFailure("ffprobe -show_frames rejected \(path): \(result.stderrText)")
        }
        return (json["frames"] as? [[String: Any]] ?? []).compactMap { frame in
            guard let time = (frame["best_effort_timestamp_time"] as? String).flatMap(Double.init) else { return nil }
            return (time, frame["key_frame"] as? Int == 1, frame["pict_type"] as? String ?? "?")
        }
    }

    /// The mean luma of each picture ffmpeg decodes from `path` (every frame once, as stored): the
    /// Y plane's own values (a conversion to `gray` would stretch limited range to full).
    static func lumaMeans(_ path: String) throws -> [Double] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                                   "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not decode \(path): \(result.stderrText)") }
        let (width, height) = try size(path)
        let bytes = [UInt8](result.stdout), area = width * height, picture = area + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        return stride(from: 0, to: bytes.count - picture + 1, by: picture).map { start in
            Double(bytes[start..<start + area].reduce(0) { $0 + Int($1) }) / Double(area)
        }
    }

    /// The coded size ffprobe reads from `path`'s first video track.
    static func size(_ path: String) throws -> (Int, Int) {
        let probe = try Probe.run(path)
        guard let stream = probe.streams.firstIndex(where: { $0["codec_type"] as? String == "video" }),
              let width = probe.int("width", stream: stream), let height = probe.int("height", stream: stream) else {
            throw TestFailure("ffprobe found no video size in \(path)")
        }
        return (width, height)
    }

    /// The first video stream's ffprobe fields.
    static func videoStream(_ path: String) throws -> [String: Any] {
        guard let stream = try Probe.run(path).streams.first(where: { $0["codec_type"] as? String == "video" }) else {
            throw TestFailure("ffprobe found no video stream in \(path)")
        }
        return stream
    }
}

/// Pictures a program draws itself: `count` flat pictures, picture i with luma `level(i)` and
/// neutral chroma, at i frame periods. Counts how many were pulled.
final class DrawnPictures: SampleSource {
    typealias Buffer = VideoFrame
    let outputFormat: VideoFormat
    let count: Int
    let level: (Int) -> UInt8
    private(set) var pulled = 0

    init(count: Int, width: Int = 320, height: Int = 240, rate: Int32 = 25, level: @escaping (Int) -> UInt8) {
        outputFormat = VideoFormat(pixelFormat: .yuv420p, width: width, height: height, timeBase: Rational(1, rate),
                                   frameRate: Rational(rate, 1))
        self.count = count
        self.level = level
    }

    func next() async throws -> VideoFrame? {
        guard pulled < count else { return nil }
        let picture = try VideoFrame(format: outputFormat, presentationTime: MediaTime(value: Int64(pulled), timeBase: outputFormat.timeBase),
                                     duration: MediaTime(value: 1, timeBase: outputFormat.timeBase))
        for plane in 0..<3 {
            let value = plane == 0 ? level(pulled) : 128
            try picture.withUnsafeMutablePlane(plane) { _ = $0.initializeMemory(as: UInt8.self, repeating: value) }
        }
        pulled += 1
        return picture
    }
}
