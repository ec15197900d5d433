internal import CFFmpeg

/// The video encoders' feed: pictures from upstream converted by libswscale to the encoder's
/// layout and size where they differ, moved onto the encoder's clock, with the decoder's picture
/// type cleared (else its I/P/B decisions would leak into the new stream) and a keyframe forced
/// where a segment must begin. Each picture is sent once at its own time; with an output frame
/// rate, pictures are instead repeated or dropped onto that rate's grid (ffmpeg's `-r`).
final class VideoFeed<Upstream: SampleSource>: EncoderFeed where Upstream.Buffer == VideoFrame {
    private let upstream: Upstream
    private let target: VideoFormat
    private let constantRate: Bool
    /// A keyframe boundary every `ticks / per` ticks of the encoder's clock, kept as a fraction:
    /// 0.5 s is 12.5 frame periods at 25 fps, and a rounded 13 would drift a picture a second.
    private let keyframeTimeInterval: (ticks: Int64, per: Int64)?
    private var scaler: Scaler?
    /// The encoder time of the last picture sent; every next one is later.
    private var lastTime: Int64?
    /// The first picture's time, where keyframe boundaries count from; and the next boundary.
    private var firstTime: Int64?
    private var nextKeyframe: Int64?
    /// Constant rate: the picture on the grid until a later one arrives (and how often it was
    /// shown), the next grid slot, and the picture that ends the hold at its own slot; the slot
    /// where the last picture pulled ends, and once upstream has ended, where the input ends.
    private var held: Frame?
    private var heldShown = 0
    private var nextSlot: Int64 = 0
    private var arriving: (frame: Frame, slot: Int64)?
    private var lastEnd: Int64 = 0
    private var endSlot: Int64?
    /// How long each picture sent and not yet out of the encoder lasts, by its time: libavcodec 5.1's
    /// video encoders give packets no duration, and without one an MP4's edit list ends at the last
    /// picture's start, so players drop that picture.
    private var durations: [Int64: Int64] = [:]
    /// The first picture's field order (`AVFieldOrder`: progressive, or interlaced top or bottom
    /// field first), which the encoded stream states, as ffmpeg's encoder set-up takes it.
    private(set) var firstFieldOrder: Int32?
    /// Pictures dropped or repeated to keep a constant rate.
    private(set) var dropped = 0
    private(set) var repeated = 0

    init(upstream: Upstream, target: VideoFormat, constantRate: Bool, keyframeTimeInterval: MediaTime?) {
        self.upstream = upstream
        self.target = target
        self.constantRate = constantRate
        self.keyframeTimeInterval = keyframeTimeInterval.flatMap { every in
            let ticks = every.value * Int64(every.timeBase.numerator) * Int64(target.timeBase.denominator)
            let per = Int64(every.timeBase.denominator) * Int64(target.timeBase.numerator)
            guard ticks > 0, per > 0 else { return nil }
            var (a, b) = (ticks, per)
            while b != 0 { (a, b) = (b, a % b) }
            return (ticks / a, per / a)
        }
    }

    func next() async throws -> Frame? {
        try checkCancellation()
        if constantRate { return try await nextOnGrid() }
        guard let picture = try await upstream.next() else { return nil }
        let frame = try converted(picture)
        let wanted = encoderTime(of: picture) ?? lastTime.map { $0 + 1 } ?? 0
        // Rounding onto a coarser clock can put two pictures on one tick; the later one moves to
        // the next tick, so it is still sent (x264 refuses equal times).
        let time = lastTime.map { max(wanted, $0 + 1) } ?? wanted
        return stamp(frame, at: time, duration: picture.duration?.converted(to: target.timeBase).value)
    }

    /// Constant rate: slot n shows the last picture whose own slot is at most n (the `fps` filter's
    /// rule): a picture is repeated over the slots up to the next one's, or dropped when the next
    /// one takes its slot before it was shown.
    private func nextOnGrid() async throws -> Frame? {
        while true {
            if let held, let arriving {
                if nextSlot < arriving.slot {
                    heldShown += 1
                    if heldShown > 1 { repeated += 1 }
                    defer { nextSlot += 1 }
                    return stamp(try held.newReference(), at: nextSlot, duration: 1)
                }
                if heldShown == 0 { dropped += 1 }
                (self.held, heldShown, self.arriving) = (arriving.frame, 0, nil)
                continue
            }
            if let endSlot {
                // The input ends where its last picture does, rounded onto the grid as the `fps`
                // filter rounds it: the last picture fills the slots before that, maybe none.
                guard let held else { return nil }
                if nextSlot < endSlot {
                    heldShown += 1
                    if heldShown > 1 { repeated += 1 }
                    defer { nextSlot += 1 }
                    return stamp(try held.newReference(), at: nextSlot, duration: 1)
                }
                if heldShown == 0 { dropped += 1 }
                self.held = nil
                return nil
            }
            guard let picture = try await upstream.next() else { endSlot = lastEnd; continue }
            let slot = encoderTime(of: picture) ?? nextSlot + 1
            // Without a duration, a picture lasts one slot.
            lastEnd = picture.presentationTime.flatMap { start in
                picture.duration.map { encoderTime(MediaTime(value: start.value + $0.converted(to: start.timeBase).value, timeBase: start.timeBase)) }
            } ?? slot + 1
            let frame = try converted(picture)
            if held == nil {
                (held, heldShown, nextSlot) = (frame, 0, slot)
            } else {
                arriving = (frame, slot)
            }
        }
    }

    /// How long the picture sent at `time` lasts (its own duration, else a frame period), once: the
    /// encoder's packet for it takes it. Pictures before `decodeTime` are all out (a packet is never
    /// shown before it is decoded), so any left (an encoder that dropped one) are forgotten.
    func takeDuration(of time: Int64, decodeTime: Int64) -> Int64? {
        if durations.count > 64 && decodeTime != avp_nopts_value() { durations = durations.filter { $0.key >= decodeTime } }
        return durations.removeValue(forKey: time)
    }

    /// One frame period on the encoder's clock, when the rate is known.
    private lazy var framePeriod: Int64? = {
        guard let rate = target.frameRate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        let ticks = av_rescale_q(1, Rational(rate.denominator, rate.numerator).avValue, target.timeBase.avValue)
        return ticks > 0 ? ticks : nil
    }()

    /// The picture's time on the encoder's clock, rounded to the nearest tick.
    private func encoderTime(of picture: VideoFrame) -> Int64? {
        picture.presentationTime.map(encoderTime)
    }

    private func encoderTime(_ time: MediaTime) -> Int64 {
        av_rescale_q_rnd(time.value, time.timeBase.avValue, target.timeBase.avValue,
                         AVRounding(rawValue: AV_ROUND_NEAR_INF.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
    }

    /// A frame of its own for the encoder: converted when the picture differs from what the encoder
    /// takes, else another reference to the same planes (never copied).
    private func converted(_ picture: VideoFrame) throws(AVPipelineError) -> Frame {
        let frame = picture.frame.pointer
        if firstFieldOrder == nil { firstFieldOrder = avp_frame_field_order(frame) }
        let source = (PixelFormat(AVPixelFormat(rawValue: frame.pointee.format)), Int(frame.pointee.width), Int(frame.pointee.height))
        let wanted = (target.pixelFormat, target.width, target.height)
        guard source != wanted else { return try picture.frame.newReference() }
        if scaler == nil || scaler!.source != source {
            // An RGB picture's "gbr" is no YUV matrix: to YUV, libswscale's BT.601, as the scale filter takes.
            let matrix = frame.pointee.colorspace == AVCOL_SPC_RGB ? AVCOL_SPC_UNSPECIFIED : frame.pointee.colorspace
            scaler = try Scaler(from: source, to: wanted, colorSpace: matrix, sourceRange: frame.pointee.color_range)
        }
        let output = try scaler!.convert(frame)
        // Described as converted (`VideoEncoderSetup.describeConversion`), not as the source was.
        let o = output.pointer
        let range = target.colorRange.map { av_color_range_from_name($0) } ?? -1
        let space = target.colorSpace.map { av_color_space_from_name($0) } ?? -1
        o.pointee.color_range = range >= 0 ? AVColorRange(rawValue: UInt32(range)) : AVCOL_RANGE_UNSPECIFIED
        o.pointee.colorspace = space >= 0 ? AVColorSpace(rawValue: UInt32(space)) : AVCOL_SPC_UNSPECIFIED
        return output
    }

    /// Sets the frame's time, clears its picture type, and makes it a keyframe at a boundary.
    private func stamp(_ frame: Frame, at time: Int64, duration: Int64?) -> Frame {
        let f = frame.pointer
        f.pointee.pts = time
        avp_frame_set_duration(f, duration ?? 0)
        durations[time] = duration.flatMap { $0 > 0 ? $0 : nil } ?? framePeriod
        f.pointee.pict_type = AV_PICTURE_TYPE_NONE
        if let (ticks, per) = keyframeTimeInterval {
            let first = firstTime ?? time
            firstTime = first
            if time >= nextKeyframe ?? first {
                f.pointee.pict_type = AV_PICTURE_TYPE_I
                // Boundary k is k·ticks/per after the first picture, rounded up to a whole tick (the
                // first picture at or after it); the next one after this picture.
                let k = (time - first) * per / ticks + 1
                nextKeyframe = first + (k * ticks + per - 1) / per
            }
        }
        lastTime = time
        return frame
    }
}
