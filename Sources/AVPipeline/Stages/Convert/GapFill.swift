internal import CFFmpeg

/// Fills the gaps between PCM buffers' presentation times with silence, so what follows has a
/// timeline without holes: where a live capture lost audio (an overrun), the file keeps the lost
/// stretch as silence and its length stays the capture time — the encoder downstream numbers
/// samples one after the other and would otherwise close the gap, moving everything after it.
///
/// With a `start` time, a hole before the first buffer is filled too (a capture's clock starts at
/// 0 even when its first audio was lost). Buffers without a time, and buffers that overlap the
/// previous one, pass unchanged.
public final class GapFill<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    /// PCM, with silence where the timeline had holes.
    public typealias Buffer = PCMBuffer

    /// The longest silent buffer handed out at once, in seconds of audio (a long gap comes in pieces).
    static var longestSilence: Double { 1 }

    public let outputFormat: AudioFormat
    /// Sample frames of silence put in so far.
    public private(set) var filledFrames: Int64 = 0

    private let upstream: Upstream
    private let buffers: AudioBufferPool
    private var expected: Int64?
    private var held: PCMBuffer?

    /// Fills the holes in `upstream`'s timeline, from `start` when given.
    public init(upstream: Upstream, from start: MediaTime? = nil) {
        self.upstream = upstream
        outputFormat = upstream.outputFormat
        buffers = AudioBufferPool(format: outputFormat)
        expected = start?.converted(to: outputFormat.sampleTimeBase).value
    }

    public func next() async throws -> PCMBuffer? {
        try checkCancellation()
        let buffer: PCMBuffer
        if let held {
            buffer = held
            self.held = nil
        } else {
            guard let next = try await upstream.next() else { return nil }
            buffer = next
        }
        // Times count sample frames (the PCM's own time base).
        guard let start = buffer.presentationTime?.value else { return buffer }
        guard let expected, start > expected else {
            expected = start + Int64(buffer.frameCount)
            return buffer
        }
        // A hole before this buffer: silence first, the buffer on the next pull.
        let count = Int(Swift.min(start - expected, Int64(Double(outputFormat.sampleRate) * Self.longestSilence)))
        held = buffer
        self.expected = expected + Int64(count)
        filledFrames += Int64(count)
        return try silence(frames: count, at: expected)
    }

    private func silence(frames count: Int, at time: Int64) throws(AVPipelineError) -> PCMBuffer {
        let frame = try buffers.frame(frameCount: count)
        let planes = outputFormat.sampleFormat.isPlanar ? outputFormat.channelCount : 1
        let bytes = count * outputFormat.sampleFormat.bytesPerSample * (outputFormat.sampleFormat.isPlanar ? 1 : outputFormat.channelCount)
        // Unsigned 8-bit PCM is silent at its midpoint; every other format at zero.
        let silent: Int32 = outputFormat.sampleFormat == .u8 || outputFormat.sampleFormat == .u8p ? 0x80 : 0
        for plane in 0..<planes { memset(frame.pointer.pointee.extended_data[plane]!, silent, bytes) }
        frame.pointer.pointee.pts = time
        return PCMBuffer(frame: frame, format: outputFormat)
    }
}

extension SampleSource where Buffer == PCMBuffer {
    /// Fills holes in this PCM's timeline with silence, from `start` when given (see `GapFill`).
    public func fillingGaps(from start: MediaTime? = nil) -> GapFill<Self> { GapFill(upstream: self, from: start) }
}
