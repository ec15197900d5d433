import Foundation
import Synchronization
import Testing
import TestSupport
@testable import AVPipeline

/// A device the test drives by hand: it pulls exactly when the test says so, like a device
/// callback would, so backpressure and underruns are checked without clocks or sound servers.
final class ManualAudioOutput: AudioOutputDevice, @unchecked Sendable {
    // @unchecked: the test thread is the only one that pulls; `paused` is behind a mutex.
    let format: AudioFormat
    let bufferFrames = 256
    private var feed: RenderFeed?
    let paused = Mutex(true)

    init(format: AudioFormat) { self.format = format }
    func attach(_ feed: RenderFeed) { self.feed = feed }
    func setPaused(_ paused: Bool) { self.paused.withLock { $0 = paused } }
    func close() {}

    /// One device callback of `frames` frames; returns the bytes it was given.
    func pull(frames: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xAA, count: frames * feed!.ring.bytesPerFrame)
        bytes.withUnsafeMutableBytes { feed!.render(into: $0.baseAddress!, count: $0.count) }
        return bytes
    }
}

/// An upstream of constant PCM buffers that counts pulls and can be held at a gate.
final class CountingSource: SampleSource, @unchecked Sendable {
    // @unchecked: pulled by the renderer's task only; `pulls` and `gate` are atomic.
    typealias Buffer = PCMBuffer
    let outputFormat: AudioFormat
    let pulls = Atomic(0)
    let released = Atomic(Int.max)
    private let template: [PCMBuffer]
    private var index = 0

    init(format: AudioFormat, buffers: [PCMBuffer]) {
        outputFormat = format
        template = buffers
    }

    func next() async throws -> PCMBuffer? {
        while pulls.load(ordering: .relaxed) >= released.load(ordering: .relaxed) {
            try await Task.sleep(for: .milliseconds(1))
        }
        pulls.add(1, ordering: .relaxed)
        guard index < template.count else { return nil }
        defer { index += 1 }
        return template[index]
    }
}

@Suite struct AudioRendererTests {
    static let format = ToneBuffers.format

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<5_000 where !condition() { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition(), "condition never became true")
    }

    @Test func pausedDeviceStopsThePumpAtTheRingBound() async throws {
        let folder = TemporaryDirectory()
        let source = CountingSource(format: Self.format, buffers: try await ToneBuffers.make(200, folder: folder))
        let output = ManualAudioOutput(format: Self.format)
        let renderer = try AudioRenderer(upstream: source, output: output, options: .init(bufferDuration: 0.128))  // 1024 frames
        let control = renderer.control
        control.pause()
        let task = Task { try await renderer.run() }
        let ring = control.feed.ring
        try await Self.waitUntil { ring.fill == ring.capacity }
        let pullsWhenFull = source.pulls.load(ordering: .relaxed)
        // Several poll periods later nothing more was pulled: the ring (1024 frames = 4 buffers)
        // plus at most one pending buffer is all that was ever requested.
        try await Task.sleep(for: .milliseconds(200))
        #expect(source.pulls.load(ordering: .relaxed) == pullsWhenFull)
        #expect(pullsWhenFull <= 1024 / 256 + 1)
        #expect(ring.fill <= ring.capacity)
        #expect(output.paused.withLock { $0 }, "the device stays paused")

        // Draining half the ring (down to the low watermark) lets the pump pull again.
        control.resume()
        #expect(!output.paused.withLock { $0 })
        _ = output.pull(frames: 512)
        try await Self.waitUntil { source.pulls.load(ordering: .relaxed) > pullsWhenFull }
        control.stop()
        _ = try await task.value
    }

    @Test func slowUpstreamCountsUnderrunsAndPlaysSilence() async throws {
        let folder = TemporaryDirectory()
        let source = CountingSource(format: Self.format, buffers: try await ToneBuffers.make(20, folder: folder))
        let output = ManualAudioOutput(format: Self.format)
        let renderer = try AudioRenderer(upstream: source, output: output, options: .init(bufferDuration: 0.064))  // 512 frames
        source.released.store(3, ordering: .relaxed)  // 768 frames, then upstream stalls
        let control = renderer.control
        let task = Task { try await renderer.run() }
        // Two buffers fill the ring (512 frames); the gate rests and the device starts.
        try await Self.waitUntil { control.feed.ring.fill == 512 * 4 }
        #expect(source.pulls.load(ordering: .relaxed) == 2)
        #expect(!output.paused.withLock { $0 }, "a full ring starts the device")
        _ = output.pull(frames: 256)  // down to the low watermark: the third buffer goes in
        try await Self.waitUntil { source.pulls.load(ordering: .relaxed) == 3 && control.feed.ring.fill == 512 * 4 }
        _ = output.pull(frames: 256)
        _ = output.pull(frames: 256)
        #expect(control.statistics.underruns == 0)
        // The ring is empty and the upstream is stalled: the device gets silence.
        let starved = output.pull(frames: 256)
        let starvedAgain = output.pull(frames: 256)
        #expect(starved.allSatisfy { $0 == 0 }, "an underrun plays silence")
        #expect(starvedAgain.allSatisfy { $0 == 0 })
        let stats = control.statistics
        #expect(stats.underruns == 2)
        #expect(stats.silentSampleFrames == 512)
        #expect(stats.playedSampleFrames == 768)

        source.released.store(Int.max, ordering: .relaxed)
        while !control.feed.isDrained {
            _ = output.pull(frames: 256)
            try await Task.sleep(for: .milliseconds(2))
        }
        _ = try await task.value
        #expect(control.statistics.playedSampleFrames == 20 * 256, "every frame was played once")
    }

    @Test func volumeScalesSamplesInTheCallback() async throws {
        let folder = TemporaryDirectory()
        let buffers = try await ToneBuffers.make(8, folder: folder)
        let source = CountingSource(format: Self.format, buffers: buffers)
        let output = ManualAudioOutput(format: Self.format)
        let renderer = try AudioRenderer(upstream: source, output: output, options: .init(volume: 0.5, bufferDuration: 0.064))
        let control = renderer.control
        let task = Task { try await renderer.run() }
        try await Self.waitUntil { control.feed.ring.fill == 512 * 4 }
        let played = output.pull(frames: 256)
        var original: [UInt8] = []
        buffers[0].withUnsafePlane(0) { original = Array($0) }
        let scaled = played.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let source16 = original.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(zip(scaled, source16).allSatisfy { abs(Int($0) - Int(Float($1) * 0.5)) <= 1 })
        control.stop()
        _ = try await task.value
    }

    @Test func ringKeepsWholeFramesAcrossTheWrap() {
        let ring = PCMRingBuffer(capacityFrames: 5, bytesPerFrame: 4)
        let data = (0..<40).map { UInt8($0) }
        var out = [UInt8](repeating: 0, count: 40)
        #expect(data.withUnsafeBytes { ring.write(UnsafeRawBufferPointer(rebasing: $0[0..<14])) } == 12, "whole frames only")
        #expect(out.withUnsafeMutableBytes { ring.read(into: $0.baseAddress!, count: 10) } == 8)
        #expect(Array(out[0..<8]) == Array(data[0..<8]))
        #expect(data.withUnsafeBytes { ring.write(UnsafeRawBufferPointer(rebasing: $0[12..<40])) } == 16)  // wraps
        #expect(ring.fill == 20)
        #expect(out.withUnsafeMutableBytes { ring.read(into: $0.baseAddress!, count: 40) } == 20)
        #expect(Array(out[0..<20]) == Array(data[8..<28]))
    }

    @Test func watermarkGateRestsBetweenHighAndLow() {
        var gate = WatermarkGate(low: 10, high: 20)
        let decisions = [0, 19, 20, 15, 10, 15].map { gate.shouldProduce(fill: $0) }
        // Produces up to the high watermark, rests until the low one, then produces again.
        #expect(decisions == [true, true, false, false, true, true])
    }

    @Test func invalidVolumeIsAUsageError() {
        let output = ManualAudioOutput(format: Self.format)
        let source = CountingSource(format: Self.format, buffers: [])
        #expect(throws: AVPipelineError.self) { _ = try AudioRenderer(upstream: source, output: output, options: .init(volume: 2)) }
    }
}
