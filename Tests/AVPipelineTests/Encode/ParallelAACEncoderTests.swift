import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// `AACEncoder` with `parallel.jobs` > 1, through the library: the same packets, in the same order
/// and with the same times, as the sequential encode, whatever the input's length against the
/// segments; options checked; dropping it midway stops its workers.
@Suite struct ParallelAACEncoderTests {
    typealias Timing = (pts: Int64?, duration: Int64?)

    static func timings(_ wav: String, _ options: AudioEncoderOptions) async throws -> [Timing] {
        var result: [Timing] = []
        for try await packet in try FileCapture(path: wav, options: .init(chunkFrames: 1000)).encodeAAC(options) {
            result.append((packet.presentationTime?.value, packet.duration?.value))
        }
        return result
    }

    /// Lengths in samples around the segment bounds (segments of 8 frames = 8192 samples): shorter
    /// than one frame, than one segment, ending exactly on a segment's end and one after it, and a
    /// partial last frame.
    @Test(arguments: [100, 5_000, 8 * 1024, 16 * 1024, 16 * 1024 + 1, 24 * 1024 - 1, 50_000])
    func packetTimesAreTheSequentialOnes(samples: Int) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: Double(samples) / 44_100)
        let sequential = try await Self.timings(wav, .init())
        #expect(sequential.count == (samples + 1023) / 1024 + 1)
        for parallel in [ParallelAACEncoding(jobs: 2, segmentFrames: 8, preRoll: 4, postRoll: 1, warmUp: 3),
                         ParallelAACEncoding(jobs: 3, segmentFrames: 8, preRoll: 12, postRoll: 0),
                         ParallelAACEncoding(jobs: 2, segmentFrames: 1, preRoll: 1, postRoll: 2)] {
            let joined = try await Self.timings(wav, .init(parallel: parallel))
            #expect(joined.count == sequential.count, "\(parallel)")
            #expect(zip(joined, sequential).allSatisfy { $0.pts == $1.pts && $0.duration == $1.duration }, "\(parallel)")
        }
    }

    @Test func badOptionsAreTypedErrors() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.1)
        let bad: [AudioEncoderOptions] = [
            .init(parallel: .init(jobs: 0)), .init(parallel: .init(jobs: 2, segmentFrames: 0)),
            .init(parallel: .init(jobs: 2, preRoll: 0)), .init(parallel: .init(jobs: 2, postRoll: -1)),
            .init(parallel: .init(jobs: 2, warmUp: -1)), .init(bitRate: 96_000, quality: 1), .init(quality: 11),
        ]
        for options in bad {
            #expect(throws: AVPipelineError.self, "\(options)") { try FileCapture(path: wav).encodeAAC(options) }
        }
    }

    /// Dropped after a few packets: no error, and its worker threads end (the process would hang
    /// or crash in a later test otherwise; ThreadSanitizer runs check the hand-overs).
    @Test func droppingTheEncoderMidwayStopsItsWorkers() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 8)
        var encoder: AACEncoder<FileCapture>? = try FileCapture(path: wav).encodeAAC(
            .init(parallel: .init(jobs: 2, segmentFrames: 16, preRoll: 4, warmUp: 8)))
        for _ in 0..<40 { _ = try await encoder!.next() }
        encoder = nil
        // Another one to the end still works (the pool's threads are not stuck on the first).
        let packets = try await Self.timings(wav, .init(parallel: .init(jobs: 2, segmentFrames: 16, preRoll: 4, warmUp: 8)))
        let expected = (8 * 44_100 + 1023) / 1024 + 1
        #expect(packets.count == expected)
    }
}
