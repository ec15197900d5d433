internal import CFFmpeg

/// What `AudioDecoder` adds to the decoder loop: stamps every buffer with its presentation time in
/// samples (from the packets' timestamps, counted on where they are missing, snapped to the codec's
/// frame grid on a coarse packet clock), converts a stream that changes format midway back to
/// `outputFormat`, starts at an exact-seek target and cuts the padding after the declared end.
struct AudioDecoderMedium: DecoderMedium {
    let outputFormat: AudioFormat
    /// Decoded sample frames (samples per channel) handed on.
    private(set) var frames: Int64 = 0
    private let packetTimeBase: Rational
    private var converter: (resampler: Resampler, from: AudioFormat)?
    private var nextPTS: Int64?
    /// For a packet clock coarser than the samples (Matroska's milliseconds) and a codec whose packets
    /// all last a multiple of one size (AAC, MP3: their frame; Opus: 2.5 ms): where the track's first
    /// packet starts and that size, in samples. A full decode counts the samples on from the first
    /// packet; after a seek, the first frame's rounded time is put back on that count (else the output
    /// starts up to half a tick off: 16–32 samples at 48 kHz, as ffmpeg's -ss does; Opus 48).
    private let frameGrid: (origin: Int64, step: Int64)?
    /// One tick of the packets' clock, in samples (at least 1).
    private var timestampTolerance: Int64 {
        let tick = Double(outputFormat.sampleRate) * Double(packetTimeBase.numerator) / Double(packetTimeBase.denominator)
        return Swift.max(1, Int64(tick.rounded(.up)))
    }
    /// After an exact seek: the first sample to hand out (in `outputFormat.sampleTimeBase`).
    private var exactTarget: Int64?
    /// Where the container says the audio ends (in `outputFormat.sampleTimeBase`): the padding after it is cut.
    private let endSample: Int64?

    /// `context` is the opened decoder of a stream with `format`.
    init(context: AVCodecContext, format: EncodedAudioFormat) throws {
        packetTimeBase = format.timeBase
        let output = try Self.declaredFormat(of: context, fallback: format)
        outputFormat = output
        endSample = format.presentationEnd.map {
            av_rescale_q_rnd($0.value, $0.timeBase.avValue, output.sampleTimeBase.avValue, AV_ROUND_NEAR_INF)
        }
        let coarse = Int64(format.timeBase.numerator) * Int64(output.sampleRate) > Int64(format.timeBase.denominator)
        frameGrid = coarse ? Self.frameGrid(of: context, streamStart: format.streamStart, packetTimeBase: format.timeBase) : nil
    }

    /// See `frameGrid`. The origin is where a full decode's own count puts the first packet: FFmpeg
    /// stamps the first decoded sample at the first packet's time plus the pre-skip it drops (Opus's
    /// 312 samples, 7 ms on Matroska's clock), so the packet starts that many samples before it.
    /// Only Opus's decoder drops its declared delay itself: FFmpeg 7.1's AAC decoder declares one
    /// (Matroska's CodecDelay, 1024) and hands those samples out.
    private static func frameGrid(of context: AVCodecContext, streamStart: MediaTime?, packetTimeBase: Rational) -> (origin: Int64, step: Int64)? {
        let rate = Int64(context.sample_rate)
        // Opus packets last 2.5, 5, 10, 20, 40 or 60 ms (or several of these): always a multiple of 2.5 ms.
        let step = context.frame_size > 0 ? Int64(context.frame_size)
            : context.codec_id == AV_CODEC_ID_OPUS && rate > 0 && rate % 400 == 0 ? rate / 400 : 0
        guard step > 0, rate > 0 else { return nil }
        let samples = AVRational(num: 1, den: Int32(rate))
        let start = streamStart.map { av_rescale_q($0.value, $0.timeBase.avValue, samples) } ?? 0
        let preSkip = context.codec_id == AV_CODEC_ID_OPUS ? Int64(context.delay) : 0
        let firstSample = start + av_rescale_q(av_rescale_q(preSkip, samples, packetTimeBase.avValue), packetTimeBase.avValue, samples)
        return (firstSample - preSkip, step)
    }

    var nextFramePosition: MediaTime? { nextPTS.map { MediaTime(value: $0, timeBase: outputFormat.sampleTimeBase) } }

    mutating func output(from frame: Frame) throws(AVPipelineError) -> PCMBuffer? {
        try accept(try deliver(frame))
    }

    // MARK: - Seeking

    /// After a seek the count starts again from the packets' times; in exact mode every sample
    /// before the target is dropped.
    mutating func startOver(at mark: SeekMark) {
        nextPTS = nil
        // The sample nearest the target time, round(T·rate), where ffmpeg's -ss starts.
        exactTarget = mark.mode == .exact
            ? av_rescale_q_rnd(mark.target.value, mark.target.timeBase.avValue, outputFormat.sampleTimeBase.avValue, AV_ROUND_NEAR_INF)
            : nil
    }

    /// The buffer to hand out, if any: after an exact seek, from the target sample on; nothing past
    /// the declared end.
    private mutating func accept(_ buffer: PCMBuffer) throws(AVPipelineError) -> PCMBuffer? {
        guard let kept = try startingAtTarget(buffer) else { return nil }
        guard let end = endSample, let start = kept.presentationTime?.value else { return kept }
        let valid = end - start
        if valid <= 0 { return nil }
        if valid < Int64(kept.frameCount) { kept.frame.pointer.pointee.nb_samples = Int32(valid) }  // the padding stays, unread
        return kept
    }

    private mutating func startingAtTarget(_ buffer: PCMBuffer) throws(AVPipelineError) -> PCMBuffer? {
        guard let target = exactTarget, let start = buffer.presentationTime?.value else { return buffer }
        let end = start + Int64(buffer.frameCount)
        if end <= target { return nil }
        exactTarget = nil
        guard start < target else { return buffer }
        let skipped = Int(target - start), kept = buffer.frameCount - skipped
        let trimmed = try Frame(audio: outputFormat, frameCount: kept)
        let source = buffer.frame.pointer.pointee
        try check(av_samples_copy(trimmed.pointer.pointee.extended_data, source.extended_data, 0, Int32(skipped), Int32(kept),
                                  Int32(outputFormat.channelCount), outputFormat.sampleFormat.avValue), "av_samples_copy")
        trimmed.pointer.pointee.pts = target
        return PCMBuffer(frame: trimmed, format: outputFormat)
    }

    // MARK: - Timestamps and format

    private mutating func deliver(_ frame: Frame) throws(AVPipelineError) -> PCMBuffer {
        let f = frame.pointer
        let timeBase = outputFormat.sampleTimeBase
        var pts = nextPTS ?? 0
        if let stamped = MediaTime(ffmpeg: f.pointee.best_effort_timestamp, timeBase: packetTimeBase) {
            // A container whose clock is coarser than the samples (Matroska's milliseconds) rounds
            // each packet's time: within one of its ticks, the samples simply continue.
            let candidate = stamped.converted(to: timeBase).value
            if nextPTS == nil || abs(candidate - pts) > timestampTolerance { pts = onFrameGrid(candidate, length: Int64(frame.sampleCount)) }
        }
        let output = try conformed(frame)
        output.pointer.pointee.pts = pts
        nextPTS = pts + Int64(output.sampleCount)
        frames += Int64(output.sampleCount)
        return PCMBuffer(frame: output, format: outputFormat)
    }

    /// `pts` moved so that the frame ends on the nearest packet boundary of the track's sample count,
    /// when that is within one tick of the packets' clock (a gap in the stream leaves it where it is).
    /// The end, not the start: the first frame after a seek may lack its start (FFmpeg's Opus
    /// decoder drops the pre-skip again after a flush, and moves the time by its rounded length).
    private func onFrameGrid(_ pts: Int64, length: Int64) -> Int64 {
        guard let (origin, step) = frameGrid else { return pts }
        let offset = pts + length - origin
        let frames = (offset + (offset >= 0 ? step / 2 : -step / 2)) / step
        let snapped = origin + frames * step - length
        return abs(snapped - pts) <= timestampTolerance ? snapped : pts
    }

    /// The frame itself when it has `outputFormat`, else a converted copy.
    private mutating func conformed(_ frame: Frame) throws(AVPipelineError) -> Frame {
        let f = frame.pointer.pointee
        guard let sampleFormat = SampleFormat(rawFFmpegValue: f.format) else {
            throw .unsupportedSampleFormat(String(cString: av_get_sample_fmt_name(AVSampleFormat(rawValue: f.format))))
        }
        let actual = AudioFormat(sampleFormat: sampleFormat, sampleRate: Int(f.sample_rate), channelLayout: ChannelLayout(f.ch_layout))
        if actual == outputFormat { return frame }
        if converter?.from != actual { converter = (try Resampler(from: actual, to: outputFormat), actual) }
        let resampler = converter!.resampler
        let out = try Frame(audio: outputFormat, frameCount: Swift.max(resampler.maximumOutput(forInput: frame.sampleCount), 1))
        out.pointer.pointee.nb_samples = Int32(try resampler.convert(frame.pointer, into: out.pointer, capacity: out.sampleCount))
        return out
    }

    /// The PCM format the opened decoder announces (from the stream's parameters where it is silent).
    private static func declaredFormat(of context: AVCodecContext, fallback: EncodedAudioFormat) throws -> AudioFormat {
        let rate = context.sample_rate > 0 ? Int(context.sample_rate) : fallback.sampleRate
        let layout = context.ch_layout.nb_channels > 0 ? ChannelLayout(context.ch_layout) : fallback.channelLayout
        guard rate > 0, layout.channelCount > 0 else {
            throw AVPipelineError.unsupportedFormat("\(fallback.codec) stream declares no sample rate or channel count")
        }
        // Decoders that pick their sample format only when decoding get converted to planar float.
        let sampleFormat = SampleFormat(rawFFmpegValue: context.sample_fmt.rawValue) ?? .fltp
        return AudioFormat(sampleFormat: sampleFormat, sampleRate: rate, channelLayout: layout)
    }
}
