import Synchronization

/// The audio device's counters of a playback (an `AudioRenderer`'s `play()`, `PlaybackControl`),
/// readable at any time from any thread; `PlaybackStatistics` is the whole playback's, a `Player`'s
/// or a `VideoRenderer`'s (its `audioUnderruns` are these `underruns`).
public struct AudioPlaybackStatistics: Sendable, Equatable {
    /// Device callbacks that found the buffer short while more audio was still coming.
    public var underruns: Int
    /// Sample frames of silence played in place of missing audio (underruns only, not the tail).
    public var silentSampleFrames: Int
    /// Sample frames of the source handed to the device.
    public var playedSampleFrames: Int
}

/// What the audio device's callback reads: the PCM ring, the volume and the counters, in the
/// device's format. `render(into:count:)` runs on the device's real-time thread: it allocates
/// nothing, takes no lock and never waits — atomics and `memcpy` only.
///
/// `@unchecked Sendable`: `ring` is an SPSC ring (see `PCMRingBuffer`); every other mutable field is
/// an `Atomic`. `format` and the scale function are immutable after `init`.
public final class RenderFeed: @unchecked Sendable {
    /// The device's format (what the ring holds).
    public let format: AudioFormat
    let ring: PCMRingBuffer
    private let silenceByte: UInt8
    private let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    private let underruns = Atomic<Int>(0)
    private let silentSampleFrames = Atomic<Int>(0)
    private let playedSampleFrames = Atomic<Int>(0)
    private let ended = Atomic<Bool>(false)
    private let drained = Atomic<Bool>(false)
    /// The latest callback that played source audio: when it started, and the ring's read count
    /// after it. A seqlock (odd while being written) so readers get a consistent pair without the
    /// callback ever waiting.
    private let stampSequence = Atomic<Int>(0)
    private let stampNanoseconds = Atomic<Int>(0)
    private let stampConsumedFrames = Atomic<Int>(0)

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

    var statistics: AudioPlaybackStatistics {
        AudioPlaybackStatistics(underruns: underruns.load(ordering: .relaxed), silentSampleFrames: silentSampleFrames.load(ordering: .relaxed),
                         playedSampleFrames: playedSampleFrames.load(ordering: .relaxed))
    }

    /// The producer is done: a short buffer from now on is the tail, not an underrun.
    func markEnded() { ended.store(true, ordering: .releasing) }

    /// Whether the device has taken the last byte of a stream marked ended.
    var isDrained: Bool { drained.load(ordering: .acquiring) }

    var isEnded: Bool { ended.load(ordering: .acquiring) }

    /// More is coming after all (a seek back from the end).
    func reopen() {
        ended.store(false, ordering: .releasing)
        drained.store(false, ordering: .releasing)
    }

    /// The latest callback that took source audio: when it started (monotonic nanoseconds) and the
    /// ring's read count once it had taken it; nil before the first.
    var stamp: (nanoseconds: Int, consumedFrames: Int)? {
        while true {
            let before = stampSequence.load(ordering: .acquiring)
            guard before & 1 == 0 else { continue }
            let stamp = (stampNanoseconds.load(ordering: .acquiring), stampConsumedFrames.load(ordering: .acquiring))
            guard stampSequence.load(ordering: .acquiring) == before else { continue }
            return before == 0 ? nil : stamp
        }
    }

    /// Device thread: fills `count` bytes at `destination` with the next PCM, silence where none is.
    public func render(into destination: UnsafeMutableRawPointer, count: Int) {
        let started = MonotonicTime.nanoseconds()
        let finished = ended.load(ordering: .acquiring)
        let copied = ring.read(into: destination, count: count)
        if copied > 0 {
            scale(destination, byteCount: copied)
            // Only callbacks that played audio move the clock; after the end it runs on freely.
            let sequence = stampSequence.load(ordering: .relaxed)
            stampSequence.store(sequence + 1, ordering: .releasing)
            stampNanoseconds.store(started, ordering: .releasing)
            stampConsumedFrames.store(ring.consumedFrames, ordering: .releasing)
            stampSequence.store(sequence + 2, ordering: .releasing)
        }
        playedSampleFrames.add(copied / ring.bytesPerFrame, ordering: .relaxed)
        guard copied < count else { return }
        (destination + copied).initializeMemory(as: UInt8.self, repeating: silenceByte, count: count - copied)
        if finished {
            drained.store(true, ordering: .releasing)
        } else {
            underruns.add(1, ordering: .relaxed)
            silentSampleFrames.add((count - copied) / ring.bytesPerFrame, ordering: .relaxed)
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
