internal import CFFmpeg

/// A parallel AAC encode behind the same pull interface as `EncoderCore`: the input is cut into
/// segments of AAC frames (`AACSegmentPlan`), each encoded by its own encoder on a worker thread,
/// and the packets come out in the order, and with the content boundaries, of the sequential encode.
///
/// Bounded: at most `jobs` segments are in flight, each holding its PCM (read in full when it
/// starts, freed frame by frame as it is encoded) and its kept packets until the consumer takes
/// them, so memory is about jobs × (S + P + Q) frames of PCM, whatever the input's length. The
/// input is read once, in order, by the consumer's task: a segment is read when a slot frees,
/// which any source can do (no seeking, no second reader).
final class ParallelAACEncoderCore<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    private let feed: AudioFeed<Upstream>
    private let plan: AACSegmentPlan
    private let jobs: Int
    /// Opens another encoder like `first` (segment 0's).
    private let makeEncoder: () throws -> CodecContext
    private var first: CodecContext?

    private var inFlight: [BoundedHandoff] = []
    /// Encoders handed back by finished segments, for the next ones (see `AACSegmentEncoder`).
    private var warm: [CodecContext] = []
    /// Frames read and not yet given to a segment, or kept for the next one's pre-roll; the first is
    /// frame number `recentStart`.
    private var recent: [Frame] = []
    private var recentStart = 0
    private var framesRead = 0
    private var samplesRead = 0
    /// The encoders' priming, in samples (1024).
    private let padding: Int
    private var inputEnded = false
    private var origin: Int64?
    private var nextSegment = 0
    private var allStarted = false
    private let stop = LockedState(false)

    /// `first` is open and takes the frames `feed` makes; `makeEncoder` opens another like it.
    init(feed: AudioFeed<Upstream>, first: CodecContext, plan: AACSegmentPlan, jobs: Int,
         makeEncoder: @escaping () throws -> CodecContext) {
        self.feed = feed
        self.first = first
        self.plan = plan
        self.jobs = jobs
        self.makeEncoder = makeEncoder
        padding = Int(first.pointer.pointee.initial_padding)
    }

    deinit {
        // Workers still running see the flag at their next frame and end; what they made is dropped.
        stop.withLock { $0 = true }
        for output in inFlight { output.abandon() }
    }

    /// The next encoded packet, in the sequential encode's order, or nil at the end.
    func next() async throws -> Packet? {
        do {
            while true {
                try checkCancellation()
                while inFlight.count < jobs, !allStarted { try await startNextSegment() }
                guard let head = inFlight.first else { return nil }
                guard let item = try await head.pop() else {
                    inFlight.removeFirst()
                    continue
                }
                if let returned = item.value as? AACSegmentEncoder.Returned {
                    if plan.continuesEncoders { warm.append(returned.encoder) }
                    continue
                }
                return unsafeDowncast(item.value, to: Packet.self)
            }
        } catch {
            stop.withLock { $0 = true }
            for output in inFlight { output.abandon() }
            inFlight = []
            throw error
        }
    }

    /// Reads the next segment's frames and starts its encoder.
    private func startNextSegment() async throws {
        let segment = nextSegment
        while framesRead < plan.feedEnd(of: segment), !inputEnded {
            if let frame = try await feed.next() {
                if origin == nil { origin = frame.pointer.pointee.pts }
                samplesRead += frame.sampleCount
                recent.append(frame)
                framesRead += 1
            } else {
                inputEnded = true
            }
        }
        // The input ended within its reach: this segment takes the rest, the flush included. (When
        // it ends exactly at a boundary with no post-roll, the next segment is fed only its
        // pre-roll and keeps the flush; an empty input gives segment 0 nothing, as sequentially.)
        let isLast = inputEnded
        // Segment 0's encoder is the sequential one: its flush gives exactly the sequential packets.
        let kept = plan.kept(by: segment, isLast: isLast, packets: segment == 0 ? nil
                             : AACSegmentPlan.packetCount(samples: samplesRead, padding: padding, frameSize: feed.frameSize))
        // Segment 0 starts cold exactly as the sequential encode does; later ones continue a warm
        // encoder, or warm a new one up first.
        let (encoder, continued, warmUp): (CodecContext, Bool, Int)
        if segment == 0 {
            (encoder, continued, warmUp) = (takeFirst(), false, 0)
        } else if let reused = warm.popLast() {
            (encoder, continued, warmUp) = (reused, true, 0)
        } else {
            (encoder, continued, warmUp) = (try makeEncoder(), false, plan.warmUp)
        }
        // The frames the next segment is fed too are copied (each segment owns its frames); the
        // rest move to this segment and are freed as it encodes them.
        let nextFeedStart = plan.feedStart(of: segment + 1)
        let shared = Swift.max(0, Swift.min(recent.count, recentStart + recent.count - nextFeedStart))
        var frames = Array(recent.prefix(recent.count - shared))
        for frame in recent.suffix(shared) { frames.append(try frame.copy(format: feed.format)) }
        recent.removeFirst(recent.count - shared)
        recentStart = framesRead - recent.count
        // Room for every packet the segment keeps (and the encoder it hands back): the worker never
        // waits. The consumer is woken per 16 packets, not per packet (a wake-up costs ~10 µs).
        let capacity = plan.segmentFrames + plan.preRoll + plan.postRoll + 4
        let output = BoundedHandoff(capacity: capacity, consumerBatch: Swift.min(16, capacity))
        AACSegmentEncoder.start(AACSegmentEncoder(encoder: encoder, continued: continued, warmUp: warmUp, frames: frames, kept: kept,
                                            origin: origin ?? 0, frameSize: feed.frameSize, output: output, stop: stop))
        inFlight.append(output)
        nextSegment += 1
        allStarted = isLast
    }

    private func takeFirst() -> CodecContext {
        defer { first = nil }
        return first!
    }
}

extension Frame {
    /// A frame of its own holding the same samples and time.
    func copy(format: AudioFormat) throws(AVPipelineError) -> Frame {
        let copy = try Frame(audio: format, frameCount: sampleCount)
        let planes = format.sampleFormat.isPlanar ? format.channelCount : 1
        let bytes = sampleCount * format.sampleFormat.bytesPerSample * (format.sampleFormat.isPlanar ? 1 : format.channelCount)
        for plane in 0..<planes {
            memcpy(copy.pointer.pointee.extended_data[plane]!, pointer.pointee.extended_data[plane]!, bytes)
        }
        copy.pointer.pointee.pts = pointer.pointee.pts
        return copy
    }
}
