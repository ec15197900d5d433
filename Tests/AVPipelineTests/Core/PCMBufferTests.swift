import Foundation
import Testing
import TestSupport
import AVPipeline

/// Sound made in code: `PCMBuffer(format:frameCount:presentationTime:)` and its writable planes.
struct PCMBufferTests {
    /// 1 s of a 440 Hz tone, s16 stereo at 48 kHz, written chunk by chunk into new buffers.
    final class Tone: SampleSource {
        let outputFormat = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channelLayout: .stereo)
        private var made = 0
        let total = 48_000

        func next() async throws -> PCMBuffer? {
            guard made < total else { return nil }
            let count = Swift.min(1000, total - made)
            let buffer = try PCMBuffer(format: outputFormat, frameCount: count,
                                       presentationTime: MediaTime(value: Int64(made), timeBase: outputFormat.sampleTimeBase))
            try buffer.withUnsafeMutablePlane(0) { bytes in
                let samples = bytes.bindMemory(to: Int16.self)
                for frame in 0..<count {
                    let value = Int16(12_000 * sin(2 * Double.pi * 440 * Double(made + frame) / 48_000))
                    samples[2 * frame] = value
                    samples[2 * frame + 1] = value
                }
            }
            made += count
            return buffer
        }
    }

    @Test func aToneMadeInCodeEncodesToAACThatPlaysAsThatTone() async throws {
        let folder = TemporaryDirectory()
        let output = folder.file("tone.aac")
        try await Tone().encodeAAC(.init(bitRate: 96_000)).writeADTS(to: output)
        // The oracle: ffmpeg decodes it to 1 s of 440 Hz.
        let decoded = try Subprocess.run("ffmpeg", ["-v", "error", "-i", output, "-f", "s16le", "-ac", "2", "-"])
        let channels = SignalAnalysis.deinterleaveS16([UInt8](decoded.stdout), channels: 2)
        // ADTS keeps the encoder's priming and last frame's padding: 1 s plus at most two frames.
        #expect((48_000...48_000 + 2048).contains(channels[0].count), "\(channels[0].count) samples")
        #expect(abs(SignalAnalysis.dominantFrequency(channels[0], sampleRate: 48_000, start: 8_000) - 440) < 5)
        #expect(SignalAnalysis.rms(channels[1]) > 0.1)
    }

    @Test func aNewBufferIsSilentTimedAndRefusesAbsurdSizes() throws {
        let format = AudioFormat(sampleFormat: .fltp, sampleRate: 44_100, channelLayout: .stereo)
        let buffer = try PCMBuffer(format: format, frameCount: 256, presentationTime: .seconds(2))
        #expect(buffer.planeCount == 2 && buffer.frameCount == 256)
        #expect(buffer.presentationTime?.value == 88_200)
        buffer.withUnsafePlane(1) { plane in
            #expect(plane.count == 256 * 4 && plane.allSatisfy { $0 == 0 })
        }
        let unsigned = try PCMBuffer(format: AudioFormat(sampleFormat: .u8, sampleRate: 8_000, channelLayout: .mono), frameCount: 10, presentationTime: nil)
        unsigned.withUnsafePlane(0) { #expect($0.allSatisfy { $0 == 0x80 }) }
        #expect(throws: AVPipelineError.self) { try PCMBuffer(format: format, frameCount: 0, presentationTime: nil) }
    }
}
