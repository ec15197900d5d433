import Foundation
import Testing
import TestSupport
import AVPipeline

/// Exact seeking against ffmpeg: for random targets in a 60 s clip with 2 s GOPs, the first picture
/// is the one `ffmpeg -ss T -i` gives (accurate seek), and the first audio sample is the full
/// decode's sample round(T·rate), where `ffmpeg -ss T` starts — also when seeking backwards, and
/// after reading to the end.
@Suite struct SeekTests {
    static let clip: String = {
        let path = NSTemporaryDirectory() + "avpipe-seek-clip-\(getpid()).mp4"
        _ = try? DemuxMedia.movie(path, seconds: 60, videoArguments: ["-g", "50", "-bf", "2", "-preset", "ultrafast"])
        atexit { unlink(NSTemporaryDirectory() + "avpipe-seek-clip-\(getpid()).mp4") }
        return path
    }()

    /// The visible bytes of a yuv420p picture, plane after plane (what `-f rawvideo` writes).
    static func visibleBytes(_ frame: VideoFrame) -> [UInt8] {
        var bytes: [UInt8] = []
        for plane in 0..<3 {
            let width = plane == 0 ? frame.format.width : frame.format.width / 2
            let stride = frame.lineSize(plane)
            frame.withUnsafePlane(plane) { data in
                for row in 0..<frame.planeHeight(plane) {
                    bytes.append(contentsOf: data[(row * stride)..<(row * stride + width)])
                }
            }
        }
        return bytes
    }

    static func ffmpegFirstPicture(at seconds: Double) throws -> [UInt8] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-ss", String(format: "%.6f", seconds), "-i", clip,
                                                   "-frames:v", "1", "-fps_mode", "passthrough", "-f", "rawvideo", "-"])
        guard result.status == 0 else { throw TestFailure(result.stderrText) }
        return [UInt8](result.stdout)
    }

    static let fullDecode: [Float] = {
        let result = try? Subprocess.run("ffmpeg", ["-v", "error", "-i", clip, "-f", "f32le", "-"])
        return (result?.stdout ?? Data()).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }()

    @Test func exactSeeksLandWhereFFmpegsDo() async throws {
        let demuxer = try Demuxer(path: Self.clip)
        let video = try demuxer.videoTrack().decodeVideo()
        let audio = try demuxer.audioTrack().decodeAudio()
        let rate = audio.outputFormat.sampleRate
        #expect(Self.fullDecode.count > 59 * rate)

        // Read everything first, so the seeks also prove that a finished stream starts again.
        while try await video.next() != nil {}
        while try await audio.next() != nil {}

        var generator = SplitMix(seed: 20261123)
        var targets = (0..<18).map { _ in Double(generator.next() % 58_000_000) / 1_000_000 + 0.5 }
        targets += [2.0, 0.04]  // exactly on a keyframe; on the second picture
        for seconds in targets {
            let microseconds = Int64((seconds * 1_000_000).rounded())
            try demuxer.seek(to: MediaTime(value: microseconds, timeBase: Rational(1, 1_000_000)), mode: .exact)
            let picture = try #require(try await video.next(), "no picture after seeking to \(seconds)")
            #expect(Self.visibleBytes(picture) == (try Self.ffmpegFirstPicture(at: seconds)),
                    "first picture after seeking to \(seconds) s (ours at \(picture.presentationTime.map { "\($0)" } ?? "?"))")

            let buffer = try #require(try await audio.next(), "no audio after seeking to \(seconds)")
            let first = Int((microseconds * Int64(rate) + 500_000) / 1_000_000)
            #expect(buffer.presentationTime?.value == Int64(first), "audio starts at sample \(buffer.presentationTime?.value ?? -1), not \(first)")
            var samples: [Float] = []
            buffer.withUnsafePlane(0) { samples = Array($0.bindMemory(to: Float.self)) }
            // The same samples as the full decode but for the AAC encoder's noise substitution (PNS),
            // whose decoder-side random state differs after a jump: a few LSB of 16 bits, where a
            // sample off by one position differs by ~250 on this tone.
            let reference = Self.fullDecode[first..<min(first + samples.count, Self.fullDecode.count)]
            let worst = zip(samples, reference).map { abs($0 - $1) }.max() ?? 1
            #expect(worst <= 4.0 / 32_768, "audio after seeking to \(seconds) s differs by up to \(worst)")
        }
    }

    @Test func keyframeSeeksStartOnAKeyframeAtOrBeforeTheTarget() async throws {
        let demuxer = try Demuxer(path: Self.clip)
        let video = try demuxer.videoTrack().decodeVideo()
        try demuxer.seek(to: MediaTime(value: 4_500, timeBase: Rational(1, 1000)), mode: .keyframe)
        let picture = try #require(try await video.next())
        #expect(picture.isKeyframe)
        #expect(picture.presentationTime.map { $0.seconds } == 4.0)
    }

    @Test func aSeekPastTheEndEndsTheStream() async throws {
        let demuxer = try Demuxer(path: Self.clip)
        let video = try demuxer.videoTrack().decodeVideo()
        try demuxer.seek(to: .seconds(3600))
        #expect(try await video.next() == nil)
    }

    @Test func aPipeCannotSeek() throws {
        let folder = TemporaryDirectory()
        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try PipeDemuxTests.feed(try DemuxMedia.movie(folder.file("in.ts"), seconds: 1), into: fifo)
        defer { writer.terminate(); writer.waitUntilExit() }
        let demuxer = try Demuxer(path: fifo)
        #expect { try demuxer.seek(to: .seconds(1)) } throws: { ($0 as? AVPipelineError)?.category == .unsupported }
    }
}

/// A small deterministic generator, so the random targets are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
