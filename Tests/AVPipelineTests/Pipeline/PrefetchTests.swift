import Foundation
import Synchronization
import Testing
import TestSupport
@testable import AVPipeline

/// Real PCM buffers handed out one per pull, counting pulls; optionally fails after `failAfter`
/// buffers, or waits `delay` per pull. Lives on whichever task pulls it (the prefetch task).
final class ScriptedSource: SampleSource, @unchecked Sendable {
    // @unchecked: pulled by one task at a time; the counters the test reads are atomic.
    typealias Buffer = PCMBuffer
    let outputFormat: AudioFormat
    let pulls = Atomic(0)
    private let buffers: [PCMBuffer]
    private let failAfter: Int?
    private let delay: Duration?
    private var index = 0

    init(format: AudioFormat, buffers: [PCMBuffer], failAfter: Int? = nil, delay: Duration? = nil) {
        outputFormat = format
        self.buffers = buffers
        self.failAfter = failAfter
        self.delay = delay
    }

    func next() async throws -> PCMBuffer? {
        pulls.add(1, ordering: .relaxed)
        if let delay { try await Task.sleep(for: delay) }
        if let failAfter, index == failAfter { throw AVPipelineError.invalidData(path: "scripted", position: nil, reason: "boom") }
        guard index < buffers.count else { return nil }
        defer { index += 1 }
        return buffers[index]
    }
}

@Suite struct PrefetchTests {
    static let format = ToneBuffers.format

    static func bytes(_ buffer: PCMBuffer) -> [UInt8] { buffer.withUnsafePlane(0) { Array($0) } }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<2_500 where !condition() { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition(), "condition never became true")
    }

    @Test func deliversEveryBufferInOrderUnchanged() async throws {
        let folder = TemporaryDirectory()
        let direct = try await ToneBuffers.make(300, folder: folder)
        var viaPrefetch: [PCMBuffer] = []
        for try await buffer in try FileCapture(path: folder.file("t.wav"), options: .init(chunkFrames: 256)).prefetched(capacity: 8) {
            viaPrefetch.append(buffer)
        }
        #expect(viaPrefetch.count == direct.count)
        for (a, b) in zip(direct, viaPrefetch) {
            #expect(a.presentationTime == b.presentationTime)
            #expect(Self.bytes(a) == Self.bytes(b))
        }
    }

    @Test func pullsNothingBeforeTheFirstPullAndNeverMoreThanCapacityAhead() async throws {
        let folder = TemporaryDirectory()
        let source = ScriptedSource(format: Self.format, buffers: try await ToneBuffers.make(200, folder: folder))
        let prefetch = try source.prefetched(capacity: 16)
        try await Task.sleep(for: .milliseconds(50))
        #expect(source.pulls.load(ordering: .relaxed) == 0, "the upstream ran before anyone asked")

        var consumed = 0
        while try await prefetch.next() != nil {
            consumed += 1
            if consumed % 50 == 1 {
                // A slow consumer: the producer fills the buffer and must stop there.
                try await Self.waitUntil { prefetch.highWaterMark == 16 }
                try await Task.sleep(for: .milliseconds(20))
            }
            let ahead = source.pulls.load(ordering: .relaxed) - consumed
            #expect(ahead <= 16, "upstream pulled \(ahead) buffers ahead of the consumer (bound 16)")
        }
        #expect(consumed == 200)
        #expect(prefetch.highWaterMark == 16, "the bound was never reached, so it was not tested")
    }

    @Test func anUpstreamErrorArrivesAfterTheBuffersMadeBeforeIt() async throws {
        let folder = TemporaryDirectory()
        let source = ScriptedSource(format: Self.format, buffers: try await ToneBuffers.make(20, folder: folder), failAfter: 7)
        let prefetch = try source.prefetched(capacity: 4)
        var received = 0
        do {
            while try await prefetch.next() != nil { received += 1 }
            Issue.record("the upstream's error was lost")
        } catch AVPipelineError.invalidData(_, _, let reason) {
            #expect(reason == "boom")
        }
        #expect(received == 7)
    }

    @Test func droppingTheConsumerStopsAndReleasesTheUpstream() async throws {
        let folder = TemporaryDirectory()
        weak var released: ScriptedSource?
        var prefetch: Prefetch<ScriptedSource>?
        do {
            let source = ScriptedSource(format: Self.format, buffers: try await ToneBuffers.make(100, folder: folder))
            released = source
            prefetch = try source.prefetched(capacity: 8)
        }
        _ = try await prefetch!.next()
        try await Self.waitUntil { prefetch!.highWaterMark == 8 }
        let pullsBeforeDrop = released!.pulls.load(ordering: .relaxed)
        prefetch = nil
        // The producing task ends and frees the upstream it owned.
        try await Self.waitUntil { released == nil }
        #expect(pullsBeforeDrop <= 1 + 8)
    }

    @Test func cancellingTheConsumerThrowsCancelledAndStopsTheUpstream() async throws {
        let folder = TemporaryDirectory()
        let source = ScriptedSource(format: Self.format, buffers: try await ToneBuffers.make(1_000, folder: folder), delay: .milliseconds(5))
        let prefetch = try source.prefetched(capacity: 4)
        let consumer = Task {
            var count = 0
            while try await prefetch.next() != nil { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        await #expect(throws: AVPipelineError.cancelled) { _ = try await consumer.value }
        let stopped = source.pulls.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        #expect(source.pulls.load(ordering: .relaxed) <= stopped + 1, "the upstream kept being pulled after cancellation")
        #expect(stopped < 1_000)
    }

    @Test func capacityOutsideItsRangeIsATypedError() async throws {
        let source = ScriptedSource(format: Self.format, buffers: [])
        #expect(throws: AVPipelineError.self) { _ = try source.prefetched(capacity: 0) }
        #expect(throws: AVPipelineError.self) { _ = try source.prefetched(capacity: 5_000) }
    }
}
