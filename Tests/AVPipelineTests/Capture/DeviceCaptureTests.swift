import Foundation
import Synchronization
import Testing
@testable import AVPipeline
import TestSupport

/// A device the test pushes by hand, one 10 ms block at a time, so what each test checks does not
/// depend on how threads are scheduled (a suite run in parallel starves the cooperative pool for
/// seconds). Sample n, counted from the start, is `value(n)`: every delivered sample can be checked
/// against the time its buffer claims. Blocks pushed before the capture starts the device wait, as
/// in a device's own buffer.
final class PushedAudioInput: AudioInputDevice, @unchecked Sendable {
    let format = AudioFormat(sampleFormat: .s16, sampleRate: 48_000, channelLayout: .default(channelCount: 1))
    let name = "pushed"
    private struct State {
        var ring: CaptureRing?
        var waiting: [[Int16]] = []
        var pushed = 0
        var closed = false
    }
    private let state = LockedBox(State())

    /// A 441 Hz tone whose period is not a whole number of samples, so a jump shows in the values.
    static func value(_ n: Int64) -> Int16 { Int16((sin(2 * Double.pi * 441 * Double(n) / 48_000) * 12_000).rounded()) }

    var pushed: Int { state.get().pushed }
    var isClosed: Bool { state.get().closed }

    func start(into ring: CaptureRing) {
        state.update { state in
            state.ring = ring
            for block in state.waiting { block.withUnsafeBytes { ring.write($0) } }
            state.waiting = []
        }
    }

    func close() { state.update { $0.closed = true } }

    /// Pushes `count` blocks of 480 frames (ignored once closed, as a closed device delivers nothing).
    func push(_ count: Int = 1) {
        state.update { state in
            for _ in 0..<count where !state.closed {
                let first = Int64(state.pushed) * 480
                let block = (0..<480).map { Self.value(first + Int64($0)) }
                if let ring = state.ring { block.withUnsafeBytes { ring.write($0) } } else { state.waiting.append(block) }
                state.pushed += 1
            }
        }
    }
}

/// `DeviceCapture`: the bounded ring where the device's push meets the pipeline's pull.
@Suite struct DeviceCaptureTests {
    /// Reads every buffer, checking each sample against the device's at the buffer's own time;
    /// `feed` runs before each read (the device going on).
    static func drain(_ capture: DeviceCapture, feed: () -> Void = {}) async throws -> (buffers: [(pts: Int64, count: Int)], mismatches: Int) {
        var buffers: [(Int64, Int)] = []
        var mismatches = 0
        while true {
            feed()
            guard let buffer = try await capture.next() else { break }
            let pts = try #require(buffer.presentationTime).value
            buffer.withUnsafePlane(0) { bytes in
                let samples = bytes.bindMemory(to: Int16.self)
                for i in 0..<buffer.frameCount where samples[i] != PushedAudioInput.value(pts + Int64(i)) { mismatches += 1 }
            }
            buffers.append((pts, buffer.frameCount))
        }
        return (buffers, mismatches)
    }

    @Test func everyFrameArrivesOnTheCaptureClock() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(chunkFrames: 1024, duration: .seconds(1)))
        // The device keeps a block ahead of the reader, as a live one would.
        let (buffers, mismatches) = try await Self.drain(capture) { if input.pushed < 110 { input.push(3) } }
        #expect(mismatches == 0, "every sample is the device's sample at its buffer's time")
        #expect(buffers.map(\.count).reduce(0, +) == 48_000, "the duration ends at exactly its sample count")
        for (previous, next) in zip(buffers, buffers.dropFirst()) {
            #expect(next.pts == previous.pts + Int64(previous.count), "buffers follow each other without gaps")
        }
        #expect(buffers.dropLast().allSatisfy { $0.count == 1024 })
        #expect(capture.control.statistics.overrunCount == 0)
        #expect(input.isClosed, "the device is stopped at the end")
    }

    /// A consumer that stalls for 2 s behind a 0.5 s ring: the oldest audio is dropped (the ring
    /// never grows), the loss is counted where it began, and the next buffer's time jumps by exactly
    /// what was lost. The device is pushed by hand here, block by block, so the numbers are exact.
    @Test func aStalledConsumerLosesTheOldestAudioAndItsTimeJumps() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(chunkFrames: 480, bufferDuration: 0.5, duration: .seconds(3)))
        var buffers: [(pts: Int64, count: Int)] = []
        var mismatches = 0
        func read() async throws -> Bool {
            guard let buffer = try await capture.next() else { return false }
            let pts = try #require(buffer.presentationTime).value
            buffer.withUnsafePlane(0) { bytes in
                let samples = bytes.bindMemory(to: Int16.self)
                for i in 0..<buffer.frameCount where samples[i] != PushedAudioInput.value(pts + Int64(i)) { mismatches += 1 }
            }
            buffers.append((pts, buffer.frameCount))
            return true
        }
        for _ in 0..<20 { input.push(); _ = try await read() }   // 0.2 s, read as it comes
        input.push(200)                         // 2 s while the consumer stalls
        for _ in 0..<80 { _ = try await read(); input.push() }    // 0.8 s more, reading again
        while try await read() {}

        let statistics = capture.control.statistics
        #expect(mismatches == 0, "audio after the loss is still the device's audio at the time it claims")
        #expect(statistics.droppedFrames == 72_000, "2 s of stall minus the 0.5 s ring: \(statistics.droppedFrames)")
        #expect(statistics.overruns.first?.at == MediaTime(value: 9_600, timeBase: Rational(1, 48_000)), "the loss began at 0.2 s")
        let jumps = zip(buffers, buffers.dropFirst()).map { $1.pts - ($0.pts + Int64($0.count)) }.filter { $0 != 0 }
        #expect(jumps == [72_000], "one jump, of exactly the lost frames")
        #expect(buffers.map(\.count).reduce(0, +) == 72_000, "delivered and lost add up to the 3 s captured")
        #expect(capture.ringCapacityFrames == 24_000, "the ring stays at its bound")
    }

    /// The silence a recording keeps for lost audio: after `fillingGaps(from: 0)` the timeline has
    /// no hole, before the first buffer or between buffers, and the audio keeps its times.
    @Test func gapsBecomeSilenceOnAnUnbrokenTimeline() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(chunkFrames: 480, bufferDuration: 0.5, duration: .seconds(3)))
        for _ in 0..<100 { input.push() }                         // 1 s before anything is read: 0.5 s lost
        let filled = capture.fillingGaps(from: .seconds(0))
        var position: Int64 = 0
        var silent = 0
        var mismatches = 0
        while let buffer = try await filled.next() {
            // The device goes on only as fast as there is room: no more loss after the first.
            defer {
                let statistics = capture.control.statistics
                let unread = Int64(input.pushed) * 480 - statistics.deliveredFrames - statistics.droppedFrames
                if input.pushed < 300 && unread <= 24_000 - 480 { input.push() }
            }
            let pts = try #require(buffer.presentationTime).value
            #expect(pts == position, "no hole at \(position)")
            buffer.withUnsafePlane(0) { bytes in
                let samples = bytes.bindMemory(to: Int16.self)
                let isSilence = samples.allSatisfy { $0 == 0 }
                if isSilence { silent += buffer.frameCount }
                for i in 0..<buffer.frameCount where !isSilence && samples[i] != PushedAudioInput.value(pts + Int64(i)) { mismatches += 1 }
            }
            position += Int64(buffer.frameCount)
        }
        #expect(position == 144_000, "3 s of timeline")
        #expect(Int64(silent) == capture.control.statistics.droppedFrames && silent == 24_000, "the lost 0.5 s is silence: \(silent)")
        #expect(mismatches == 0)
        #expect(filled.filledFrames == 24_000)
    }

    @Test func stopDeliversWhatWasCapturedThenEnds() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(chunkFrames: 4800))
        input.push(25)                  // 0.25 s captured…
        capture.control.stop()          // …then the user stops (from any thread)
        let (buffers, mismatches) = try await Self.drain(capture)
        #expect(mismatches == 0)
        #expect(buffers.map(\.count) == [4800, 4800, 2400], "all of it, the last chunk shorter")
        #expect(input.isClosed)
        #expect(try await capture.next() == nil, "the end stays the end")
    }

    @Test func cancellingThePullingTaskEndsTheStreamWithoutAnError() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(chunkFrames: 480))
        let control = capture.control
        let reading = Task { try await Self.drain(capture).buffers.count }
        input.push(10)
        while control.statistics.deliveredFrames < 4800 { try await Task.sleep(for: .milliseconds(5)) }
        reading.cancel()
        #expect(try await reading.value == 10, "what was captured before the cancellation was delivered, then the end")
        #expect(input.isClosed)
    }

    @Test func aDeviceThatDeliversNothingIsAnErrorNotAHang() async throws {
        let input = PushedAudioInput()
        let capture = try DeviceCapture(input: input, options: .init(stallTimeout: 0.3))
        await #expect {
            _ = try await capture.next()
        } throws: { error in
            guard case AVPipelineError.deviceUnavailable(.audioInput, let reason) = error else { return false }
            return reason.contains("no audio")
        }
        #expect(input.isClosed)
    }

    @Test(arguments: [
        DeviceCapture.Options(sampleRate: 100), .init(sampleRate: 1_000_000), .init(channelCount: 0), .init(channelCount: 9),
        .init(chunkFrames: 0), .init(bufferDuration: 0), .init(bufferDuration: 1000), .init(duration: .seconds(0)),
        .init(stallTimeout: 0),
    ])
    func absurdOptionsAreUsageErrors(_ options: DeviceCapture.Options) throws {
        #expect(throws: AVPipelineError.self) { try DeviceCapture(input: PushedAudioInput(), options: options) }
        // Checked before any device is opened: the devices' own error would be another type.
        #expect(throws: AVPipelineError.self) { try DeviceCapture(options: options, devices: UnopenableCaptureDevices()) }
    }

    /// Devices whose opening fails with an error that is not `AVPipelineError`.
    struct UnopenableCaptureDevices: CaptureDevices {
        struct Opened: Error {}
        func openAudioInput(named name: String?, sampleRate: Int?, channelCount: Int?) throws -> any AudioInputDevice { throw Opened() }
    }

    /// The ring alone: drops whole oldest stretches, keeps positions absolute.
    @Test func theRingDropsTheOldestAndKeepsPositions() {
        let ring = CaptureRing(capacityFrames: 4, bytesPerFrame: 2)
        let samples: [Int16] = [1, 2, 3, 4, 5, 6]
        samples.withUnsafeBytes { ring.write($0) }
        var out = [Int16](repeating: 0, count: 4)
        let result = out.withUnsafeMutableBytes { ring.read(frames: 4, into: $0.baseAddress!) }
        guard case .audio(let first, let count) = result else { Issue.record("no audio: \(result)"); return }
        #expect((first, count, out) == (2, 4, [3, 4, 5, 6]))
        #expect(ring.losses.count == 1 && ring.losses.droppedFrames == 2 && ring.losses.first == [.init(frame: 0, frameCount: 2)])
        if case .wait(let missing) = out.withUnsafeMutableBytes({ ring.read(frames: 1, into: $0.baseAddress!) }) {
            #expect(missing == 1)
        } else {
            Issue.record("an empty ring waits")
        }
        ring.end()
        if case .ended = out.withUnsafeMutableBytes({ ring.read(frames: 1, into: $0.baseAddress!) }) {} else { Issue.record("ends") }
    }
}

extension DeviceCapture.Options: CustomTestStringConvertible {
    public var testDescription: String {
        "rate \(sampleRate.map(String.init) ?? "-") ch \(channelCount.map(String.init) ?? "-") chunk \(chunkFrames) buffer \(bufferDuration) duration \(duration.map { "\($0)" } ?? "-") stall \(stallTimeout)"
    }
}
