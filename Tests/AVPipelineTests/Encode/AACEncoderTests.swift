import Foundation
import Testing
import TestSupport
@testable import AVPipeline

@Suite struct AACEncoderTests {
    /// Encodes `wav` to ADTS with the library and returns the packets' (pts, duration, size).
    static func encode(_ wav: String, to output: String, bitrate: Int? = nil) async throws -> [(pts: Int64?, duration: Int64?, size: Int)] {
        let encoder = try FileCapture(path: wav).encodeAAC(.init(bitRate: bitrate))
        var packets: [(pts: Int64?, duration: Int64?, size: Int)] = []
        let recorder = Recorder(upstream: encoder) { packets.append(($0.presentationTime?.value, $0.duration?.value, $0.byteCount)) }
        try await ADTSWriter(upstream: recorder, path: output).run()
        return packets
    }

    /// The input matrix of the issue: every sample format, 1/2/6 (and 8) channels, 8 … 96 kHz.
    /// The oracle is the ffmpeg CLI with the same encoder and bitrate: our bytes must equal its bytes.
    @Test(arguments: [
        ("pcm_u8", 8_000, 1), ("pcm_s16le", 22_050, 2), ("pcm_s24le", 44_100, 2), ("pcm_s32le", 48_000, 6),
        ("pcm_f32le", 96_000, 2), ("pcm_f64le", 16_000, 1), ("pcm_s16le", 44_100, 8), ("pcm_s16le", 11_025, 6),
    ])
    func outputIsByteIdenticalToTheFFmpegCLI(codec: String, sampleRate: Int, channels: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1.5, sampleRate: sampleRate, channels: channels, codec: codec)
        let bitrate = min(64_000, 6 * sampleRate * channels)  // AAC-LC's ceiling for small streams
        _ = try await Self.encode(wav, to: folder.file("ours.aac"), bitrate: bitrate)
        try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", "-b:a", "\(bitrate)", folder.file("ffmpeg.aac")])
        let ours = try fileBytes(folder.file("ours.aac"))
        #expect(ours.count > 100)
        #expect(ours == (try fileBytes(folder.file("ffmpeg.aac"))))
        let probe = try Probe.run(folder.file("ours.aac"))
        #expect(probe.string("codec_name") == "aac")
        #expect(probe.string("profile") == "LC")
        #expect(probe.int("sample_rate") == sampleRate)
        #expect(probe.int("channels") == channels)
    }

    @Test func packetsAreContinuousAndFlushTheTail() async throws {
        let folder = TemporaryDirectory()
        let frames = 44_100 + 300  // not a multiple of 1024: the last frame is partial
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: Double(frames) / 44_100)
        let packets = try await Self.encode(wav, to: folder.file("out.aac"))
        // One packet per 1024 input frames (rounded up) plus one for the encoder's 1024-frame priming.
        #expect(packets.count == (frames + 1023) / 1024 + 1)
        #expect(packets.first?.pts == -1024, "the first packet starts at -priming")
        for (a, b) in zip(packets, packets.dropFirst()) { #expect(b.pts == a.pts.map { $0 + 1024 }) }
        #expect(try Probe.packets(folder.file("out.aac")).count == packets.count)
    }

    @Test func sampleRatesAACLacksAreResampledToTheNearestItHas() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1, sampleRate: 192_000, channels: 1)
        let encoder = try FileCapture(path: wav).encodeAAC()
        #expect(encoder.outputFormat.sampleRate == 96_000)
        try await encoder.writeADTS(to: folder.file("out.aac"))
        #expect(try Probe.run(folder.file("out.aac")).int("sample_rate") == 96_000)
    }

    /// 8 kHz mono carries at most 48 kb/s: the default and larger requests are lowered to that (as
    /// ffmpeg does), smaller ones kept; only a rate that is not positive is refused.
    @Test func bitrateIsClampedToWhatAACCarries() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.2, sampleRate: 8_000, channels: 1)
        #expect(try FileCapture(path: wav).encodeAAC().outputFormat.bitRate == 48_000)
        for (requested, used) in [(48_001, 48_000), (1_000_000_000, 48_000), (7_999, 7_999), (32_000, 32_000)] {
            let encoder = try FileCapture(path: wav).encodeAAC(.init(bitRate: requested))
            #expect(encoder.bitRate == used && encoder.outputFormat.bitRate == used, "\(requested) → \(encoder.bitRate)")
        }
        for bad in [0, -1] {
            #expect { try FileCapture(path: wav).encodeAAC(.init(bitRate: bad)) } throws: { error in
                if case AVPipelineError.invalidOption(name: "bitrate", _, _) = error { return true }
                return false
            }
        }
    }

    @Test(arguments: [48_000, 96_000, 160_000])
    func bitrateIsWithinFifteenPercentOfTheRequest(bitrate: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 10, frequencies: [440, 1000])
        _ = try await Self.encode(wav, to: folder.file("out.aac"), bitrate: bitrate)
        let probe = try Probe.run(folder.file("out.aac"))
        let measured = Double(fileSize(folder.file("out.aac")) * 8) / (probe.duration ?? 0)
        #expect(abs(measured / Double(bitrate) - 1) <= 0.15, "measured \(measured) b/s for \(bitrate)")
    }
}

/// A pass-through stage that observes each buffer: how a test looks inside a pipeline.
final class Recorder<Upstream: SampleSource>: SampleSource {
    typealias Buffer = Upstream.Buffer
    let upstream: Upstream
    let observe: (Upstream.Buffer) -> Void
    init(upstream: Upstream, observe: @escaping (Upstream.Buffer) -> Void) {
        self.upstream = upstream
        self.observe = observe
    }
    var outputFormat: Upstream.Buffer.Format { upstream.outputFormat }
    func next() async throws -> Upstream.Buffer? {
        let buffer = try await upstream.next()
        if let buffer { observe(buffer) }
        return buffer
    }
}
