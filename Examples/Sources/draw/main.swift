// draw OUT.mp4 — 3 s of a square crossing the picture and a 440 Hz tone, both made in code,
// encoded to H.264 + AAC in an MP4.
import AVPipeline
import Foundation

/// 90 pictures at 30 a second: a light square moving left to right on grey, drawn into new frames.
final class MovingSquare: SampleSource {
    let outputFormat = VideoFormat(width: 320, height: 240, timeBase: Rational(1, 30), frameRate: Rational(30, 1))
    private var index = 0

    func next() async throws -> VideoFrame? {
        guard index < 90 else { return nil }
        let picture = try VideoFrame(format: outputFormat, presentationTime: MediaTime(value: Int64(index), timeBase: Rational(1, 30)),
                                     duration: MediaTime(value: 1, timeBase: Rational(1, 30)))
        let rowBytes = picture.lineSize(0), left = index * 3
        try picture.withUnsafeMutablePlane(0) { luma in
            for y in 0..<240 { for x in 0..<320 { luma[y * rowBytes + x] = (90..<150).contains(y) && (left..<left + 60).contains(x) ? 235 : 80 } }
        }
        for chroma in 1...2 { try picture.withUnsafeMutablePlane(chroma) { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) } }
        index += 1
        return picture
    }
}

/// 3 s of a 440 Hz sine, mono at 48 kHz, in chunks of 1024 sample frames, as a microphone would deliver them.
final class Tone: SampleSource {
    let outputFormat = AudioFormat(sampleFormat: .fltp, sampleRate: 48_000, channelLayout: .mono)
    private var made = 0

    func next() async throws -> PCMBuffer? {
        guard made < 3 * 48_000 else { return nil }
        let count = Swift.min(1024, 3 * 48_000 - made), start = made
        let chunk = try PCMBuffer(format: outputFormat, frameCount: count, presentationTime: MediaTime(value: Int64(start), timeBase: outputFormat.sampleTimeBase))
        try chunk.withUnsafeMutablePlane(0) { plane in
            let samples = plane.bindMemory(to: Float.self)
            for i in samples.indices { samples[i] = Float(0.5 * sin(2 * .pi * 440 * Double(start + i) / 48_000)) }
        }
        made += count
        return chunk
    }
}

guard CommandLine.arguments.count == 2 else { print("usage: draw OUT.mp4"); exit(2) }
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let muxer = try Muxer(path: CommandLine.arguments[1])
// The muxer completes the encoder's settings for its container (MP4: the set-up in the header).
try muxer.addVideo(MovingSquare().encodeVideo(muxer.videoEncoderOptions(.init())))
try muxer.addAudio(Tone().encodeAAC())
let summary = try await muxer.run()
print("wrote \(summary.path): \(summary.tracks.map { "\($0.packets) \($0.codec) packets" }.joined(separator: ", "))")
