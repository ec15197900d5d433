import Foundation
import Testing
import TestSupport
import AVPipeline

/// Decoding is checked byte for byte against the ffmpeg CLI (`ffmpeg -i x -f s16le -`), which runs
/// the same decoder through its own demuxing, timestamp and conversion code.
@Suite struct AudioDecoderTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let container: String, ext: String, sampleRate: Int, channels: Int
        var testDescription: String { "\(ext) \(channels) ch \(sampleRate) Hz" }
    }

    static let cases: [Case] = [("adts", "aac"), ("ipod", "m4a"), ("mp4", "mp4")].flatMap { container, ext in
        [(8_000, 1), (44_100, 2), (48_000, 6), (96_000, 2)].map { Case(container: container, ext: ext, sampleRate: $0.0, channels: $0.1) }
    }

    @Test(arguments: cases)
    func decodeIsBitExactWithFFmpeg(_ c: Case) async throws {
        let folder = TemporaryDirectory()
        let path = folder.file("in.\(c.ext)")
        try makeAAC(path, sampleRate: c.sampleRate, channels: c.channels, container: c.container)
        let ours = try await decodeToBytes(path)
        let theirs = try ffmpegS16(path)
        #expect(ours.format.sampleRate == c.sampleRate)
        #expect(ours.format.channelCount == c.channels)
        #expect(ours.bytes.count == theirs.count, "\(ours.bytes.count) bytes vs ffmpeg's \(theirs.count)")
        #expect(ours.bytes == theirs, "decoded PCM differs from ffmpeg's")
        #expect(ours.statistics.skippedPackets == 0)
    }

    @Test(arguments: ["androidx__sample.adts", "androidx__bbb_1ch_8kHz_aac_lc.aac", "androidx__bbb_1ch_8kHz_aac_lc.m4a",
                      "androidx__bbb_1ch_16kHz_aac.mp4", "androidx__sample.mp4", "muxjs__test-segment.ts",
                      "muxjs__test-aac-segment.aac"])
    func corpusDecodeIsBitExactWithFFmpeg(_ name: String) async throws {
        guard Locations.corpusAvailable else { return }
        let path = Locations.corpusFile(name)
        let ours = try await decodeToBytes(path)
        let theirs = try ffmpegS16(path)
        #expect(ours.bytes.count == theirs.count, "\(ours.bytes.count) bytes vs ffmpeg's \(theirs.count)")
        #expect(ours.bytes == theirs)
    }

    @Test func decodesOurOwnEncoderOutputWithTimestamps() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1, sampleRate: 48_000, channels: 2)
        let decoder = try FileCapture(path: folder.file("pcm.wav")).encodeAAC().decodeAudio()
        #expect(decoder.outputFormat.sampleRate == 48_000)
        #expect(decoder.outputFormat.channelCount == 2)
        var expectedPTS: Int64?
        var firstPTS: Int64?
        var samples: [[Float]] = [[], []]
        for try await buffer in decoder {
            firstPTS = firstPTS ?? buffer.presentationTime?.value
            #expect(buffer.presentationTime?.value == expectedPTS ?? firstPTS, "timestamps must be contiguous")
            expectedPTS = (expectedPTS ?? firstPTS ?? 0)
                + Int64(buffer.frameCount)
            for channel in 0..<2 {
                buffer.withUnsafePlane(channel) { samples[channel].append(contentsOf: $0.bindMemory(to: Float.self)) }
            }
        }
        // The encoder's 1024 priming frames come before time 0; then 1 s of audio, padded to whole packets.
        #expect(firstPTS == -1024)
        let end = try #require(expectedPTS)
        #expect(end >= 48_000 && end <= 48_000 + 2 * 1024)
        #expect(abs(SignalAnalysis.dominantFrequency(samples[0], sampleRate: 48_000, start: 4096) - 440) <= 5)
        #expect(abs(SignalAnalysis.dominantFrequency(samples[1], sampleRate: 48_000, start: 4096) - 1000) <= 5)
    }

    @Test func resampleConvertsRateLayoutAndFormat() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1, sampleRate: 44_100, channels: 2)
        let request = AudioFormatRequest(sampleFormat: .flt, sampleRate: 16_000, channelLayout: .mono)
        let pcm = try FileCapture(path: folder.file("pcm.wav")).resampled(to: request)
        var frames = 0
        var samples: [Float] = []
        for try await buffer in pcm {
            #expect(buffer.format == pcm.outputFormat)
            frames += buffer.frameCount
            buffer.withUnsafePlane(0) { samples.append(contentsOf: $0.bindMemory(to: Float.self)) }
        }
        #expect(abs(frames - 16_000) <= 1, "1 s at 16 kHz, the resampler's tail flushed")
        #expect(abs(SignalAnalysis.dominantFrequency(samples, sampleRate: 16_000) - 440) <= 5 ||
                abs(SignalAnalysis.dominantFrequency(samples, sampleRate: 16_000) - 1000) <= 5)
    }
}
