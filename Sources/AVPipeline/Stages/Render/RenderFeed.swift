import Synchronization

/// Counters of a playback, readable at any time from any thread.
public struct RenderStatistics: Sendable, Equatable {
    /// Device callbacks that found the buffer short while more audio was still coming.
    public var underruns: Int
    /// Sample frames of silence played in place of missing audio (underruns only, not the tail).
    public var silentFrames: Int
    /// Sample frames of the source handed to the device.
    public var playedFrames: Int
}

/// What the audio device's callback reads: the PCM ring, the volume and the counters, in the
/// device's format. `render(into:count:)` runs on the device's real-time thread: it allocates
/// nothing, takes no lock and never waits — atomics and `memcpy` only.
///
/// `@unchecked Sendable`: `ring` is an SPSC ring (see `PCMRingBuffer`); every other mutable field is
/// an `Atomic`. `format` and the scale function are immutable after `init`.
final class RenderFeed: @unchecked Sendable {
    let format: AudioFormat
    let ring: PCMRingBuffer
    private let silenceByte: UInt8
    private let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    private let underruns = Atomic<Int>(0)
    private let silentFrames = Atomic<Int>(0)
    private let playedFrames = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    private let drained = Atomic<Bool>(false)

    /// `format` must be interleaved (u8, s16, s32 or flt): what audio devices take.
    init(format: AudioFormat, capacityFrames: Int) {
        precondition([.u8, .s16, .s32, .flt].contains(format.sampleFormat), "device formats are u8, s16, s32 or flt")
        self.format = format
        ring = PCMRingBuffer(capacityFrames: capacityFrames, bytesPerFrame: format.channelCount * format.sampleFormat.bytesPerSample)
        silenceByte = format.sampleFormat == .u8 ? 0x80 : 0
    }

    var volume: Float {
        get { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }
        set { volumeBits.store(Swift.min(Swift.max(newValue, 0), 1).bitPattern, ordering: .relaxed) }
    }

    var statistics: RenderStatistics {
        RenderStatistics(underruns: underruns.load(ordering: .relaxed), silentFrames: silentFrames.load(ordering: .relaxed),
                         playedFrames: playedFrames.load(ordering: .relaxed))
    }

    /// The producer is done: a short buffer from now on is the tail, not an underrun.
    func markEnded() { ended.store(true, ordering: .releasing) }

    /// Whether the device has taken the last byte of a stream marked ended.
    var isDrained: Bool { drained.load(ordering: .acquiring) }

    /// Device thread: fills `count` bytes at `destination` with the next PCM, silence where none is.
    func render(into destination: UnsafeMutableRawPointer, count: Int) {
        let finished = ended.load(ordering: .acquiring)
        let copied = ring.read(into: destination, count: count)
        if copied > 0 { scale(destination, byteCount: copied) }
        playedFrames.add(copied / ring.bytesPerFrame, ordering: .relaxed)
        guard copied < count else { return }
        (destination + copied).initializeMemory(as: UInt8.self, repeating: silenceByte, count: count - copied)
        if finished {
            drained.store(true, ordering: .releasing)
        } else {
            underruns.add(1, ordering: .relaxed)
            silentFrames.add((count - copied) / ring.bytesPerFrame, ordering: .relaxed)
        }
    }

    /// Applies the volume in place (nothing to do at full volume).
    private func scale(_ bytes: UnsafeMutableRawPointer, byteCount: Int) {
        let gain = volume
        guard gain < 1 else { return }
        switch format.sampleFormat {
        case .flt:
            let samples = bytes.assumingMemoryBound(to: Float.self)
            for i in 0..<byteCount / 4 { samples[i] *= gain }
        case .s16:
            let samples = bytes.assumingMemoryBound(to: Int16.self)
            for i in 0..<byteCount / 2 { samples[i] = Int16(Float(samples[i]) * gain) }
        case .s32:
            let samples = bytes.assumingMemoryBound(to: Int32.self)
            for i in 0..<byteCount / 4 { samples[i] = Int32(Double(samples[i]) * Double(gain)) }
        case .u8:
            let samples = bytes.assumingMemoryBound(to: UInt8.self)
            for i in 0..<byteCount { samples[i] = UInt8(128 + Int((Float(Int(samples[i]) - 128) * gain).rounded(.towardZero))) }
        default:
            break
        }
    }
}
