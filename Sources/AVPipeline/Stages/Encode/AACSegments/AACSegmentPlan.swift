/// Where a parallel AAC encode cuts its input, in AAC frames (1024 samples each).
///
/// Segment k owns frames [k·S, (k+1)·S); its encoder is fed from P frames before that (pre-roll:
/// the MDCT overlap, the psychoacoustic model's and the rate control's state) to Q frames after
/// it (post-roll: the window decision of the segment's last frame looks ahead at the next one).
/// Of what it encodes, it keeps exactly the packets the sequential encode makes for its own
/// frames: packet i (the one stamped (i − 1)·frame size, packet 0 being the priming) belongs to
/// segment ⌊i / S⌋, and the last segment keeps everything from its start on, the flush included.
struct AACSegmentPlan: Sendable, Equatable {
    let segmentFrames: Int
    let preRoll: Int
    let postRoll: Int
    /// Frames a cold encoder of a later segment encodes and discards before its pre-roll.
    var warmUp: Int = 0
    /// Whether a finished segment's encoder goes on to a later segment (bit-rate mode, whose rate
    /// control must not restart cold) or each segment gets a new one (constant quality, where a
    /// fresh encoder converges on the sequential one's output sooner than one from elsewhere).
    var continuesEncoders = true

    func start(of segment: Int) -> Int { segment * segmentFrames }
    func end(of segment: Int) -> Int { (segment + 1) * segmentFrames }

    /// The first frame fed to the segment's encoder.
    func feedStart(of segment: Int) -> Int { Swift.max(0, start(of: segment) - preRoll) }

    /// How far the input must be read for the segment (fewer frames when the input ends first).
    func feedEnd(of segment: Int) -> Int { end(of: segment) + postRoll }

    /// The packet indices the segment keeps; the last one keeps all from its start, to the
    /// sequential encode's last packet when `packets` (its count) is given. (An encoder that
    /// encoded elsewhere before, warming up or on an earlier segment, still holds a frame of that
    /// when it is flushed, and would give one packet more.)
    func kept(by segment: Int, isLast: Bool, packets: Int? = nil) -> Range<Int> {
        start(of: segment) ..< (isLast ? packets ?? Int.max : end(of: segment))
    }

    /// Packets the sequential encode gives for `samples` samples: whole frames of them and of the
    /// encoder's priming (`padding`), the last one partial.
    static func packetCount(samples: Int, padding: Int, frameSize: Int) -> Int {
        (samples + padding + frameSize - 1) / frameSize
    }

    /// Packet index of a packet stamped `pts` when the first frame was stamped `origin`.
    static func packetIndex(pts: Int64, origin: Int64, frameSize: Int) -> Int {
        Int((pts - origin) / Int64(frameSize)) + 1
    }
}

extension AACSegmentPlan {
    /// The plan for `parallel`, its defaults filled in for the mode (constant quality or a bit
    /// rate) and checked; nil for one job, the sequential encode.
    init?(_ parallel: ParallelAACEncoding, constantQuality: Bool) throws(AVPipelineError) {
        let p = parallel
        guard p.jobs >= 1 else { throw AVPipelineError.invalidOption(name: "jobs", value: "\(p.jobs)", reason: "must be at least 1") }
        guard p.segmentFrames >= 1 else {
            throw AVPipelineError.invalidOption(name: "segment frames", value: "\(p.segmentFrames)", reason: "must be at least 1")
        }
        let preRoll = p.preRoll ?? ParallelAACEncoding.defaultPreRoll(quality: constantQuality)
        // Without pre-roll the overlap-add at the cut breaks; a segment also needs one frame to
        // give the flush packet when the input ends exactly at its start.
        guard preRoll >= 1 else { throw AVPipelineError.invalidOption(name: "pre-roll", value: "\(preRoll)", reason: "must be at least 1 frame") }
        guard p.postRoll >= 0 else { throw AVPipelineError.invalidOption(name: "post-roll", value: "\(p.postRoll)", reason: "must not be negative") }
        let warmUp = p.warmUp ?? ParallelAACEncoding.defaultWarmUp(quality: constantQuality)
        guard warmUp >= 0 else { throw AVPipelineError.invalidOption(name: "warm-up", value: "\(warmUp)", reason: "must not be negative") }
        guard p.jobs > 1 else { return nil }
        self.init(segmentFrames: p.segmentFrames, preRoll: preRoll, postRoll: p.postRoll, warmUp: warmUp, continuesEncoders: !constantQuality)
    }
}
