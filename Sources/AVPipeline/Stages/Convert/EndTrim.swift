internal import CFFmpeg

/// Ends a PCM stream at `end` (a presentation time), to the sample: the buffer that spans it is cut
/// short, nothing after it is pulled.
public final class PCMEndTrim<Upstream: SampleSource>: SampleSource where Upstream.Buffer == PCMBuffer {
    /// PCM, unchanged but for the cut last buffer.
    public typealias Buffer = PCMBuffer
    public var outputFormat: AudioFormat { upstream.outputFormat }
    private let upstream: Upstream
    private var endSample: Int64
    /// Samples to keep from the first buffer's time on, when the end is counted from it (`lasting`).
    private var fromFirst: Int64?
    private var ended = false

    init(upstream: Upstream, end: MediaTime) {
        self.upstream = upstream
        endSample = av_rescale_q_rnd(end.value, end.timeBase.avValue, upstream.outputFormat.sampleTimeBase.avValue, AV_ROUND_DOWN)
    }

    /// `duration` from `start`, each rounded to the nearest sample on its own, as ffmpeg's `-ss S -t D`
    /// counts: the exact seek starts at sample round(S·rate) and exactly round(D·rate) follow.
    init(upstream: Upstream, start: MediaTime, duration: MediaTime) {
        self.upstream = upstream
        let samples = upstream.outputFormat.sampleTimeBase.avValue
        endSample = av_rescale_q_rnd(start.value, start.timeBase.avValue, samples, AV_ROUND_NEAR_INF)
            + av_rescale_q_rnd(duration.value, duration.timeBase.avValue, samples, AV_ROUND_NEAR_INF)
    }

    /// `duration` from the first buffer's time, whatever it is (a live input joined mid-stream).
    init(upstream: Upstream, lasting duration: MediaTime) {
        self.upstream = upstream
        endSample = .max
        fromFirst = av_rescale_q_rnd(duration.value, duration.timeBase.avValue, upstream.outputFormat.sampleTimeBase.avValue,
                                     AV_ROUND_NEAR_INF)
    }

    public func next() async throws -> PCMBuffer? {
        guard !ended, let buffer = try await upstream.next() else { return nil }
        guard let start = buffer.presentationTime?.value else { return buffer }
        if let samples = fromFirst {
            endSample = start + samples
            fromFirst = nil
        }
        let kept = endSample - start
        if kept <= 0 {
            ended = true
            return nil
        }
        if kept < Int64(buffer.frameCount) {
            ended = true
            buffer.frame.pointer.pointee.nb_samples = Int32(kept)  // the samples stay; fewer are valid
        }
        return buffer
    }
}

/// Ends a video stream at `end`: pictures that start at or after it are not handed out.
public final class VideoEndTrim<Upstream: SampleSource>: SampleSource where Upstream.Buffer == VideoFrame {
    /// Pictures, unchanged.
    public typealias Buffer = VideoFrame
    public var outputFormat: VideoFormat { upstream.outputFormat }
    private let upstream: Upstream
    private var end: MediaTime?
    /// How long to go on from the first picture's time, when the end is counted from it (`lasting`).
    private var fromFirst: MediaTime?
    private var ended = false

    init(upstream: Upstream, end: MediaTime) {
        self.upstream = upstream
        self.end = end
    }

    init(upstream: Upstream, lasting duration: MediaTime) {
        self.upstream = upstream
        fromFirst = duration
    }

    public func next() async throws -> VideoFrame? {
        guard !ended, let picture = try await upstream.next() else { return nil }
        if let duration = fromFirst, let start = picture.presentationTime {
            end = start + duration
            fromFirst = nil
        }
        if let start = picture.presentationTime, let end, start >= end {
            ended = true
            return nil
        }
        return picture
    }
}

extension SampleSource where Buffer == PCMBuffer {
    /// This audio up to `end` (exclusive, to the sample).
    public func ending(at end: MediaTime) -> PCMEndTrim<Self> { PCMEndTrim(upstream: self, end: end) }

    /// This audio from an exact seek to `start` for `duration`, to the sample (ffmpeg's `-ss S -t D`).
    public func ending(after duration: MediaTime, from start: MediaTime) -> PCMEndTrim<Self> {
        PCMEndTrim(upstream: self, start: start, duration: duration)
    }

    /// This audio for `duration` from its first sample, wherever that lies on the input's
    /// timeline: how a live input, joined mid-stream, is cut.
    public func lasting(_ duration: MediaTime) -> PCMEndTrim<Self> { PCMEndTrim(upstream: self, lasting: duration) }
}

extension SampleSource where Buffer == VideoFrame {
    /// These pictures up to `end` (those starting before it).
    public func ending(at end: MediaTime) -> VideoEndTrim<Self> { VideoEndTrim(upstream: self, end: end) }

    /// These pictures for `duration` from the first one's time (those starting before its end):
    /// how a live input, joined mid-stream, is cut.
    public func lasting(_ duration: MediaTime) -> VideoEndTrim<Self> { VideoEndTrim(upstream: self, lasting: duration) }
}

/// Ends a copied (encoded) stream at `end`: the first packet decoded at or after it, and all after
/// it, are neither handed out nor pulled. Cut by decode time, as ffmpeg's `-t` cuts a stream copy:
/// every picture presented before `end` is kept with the pictures it is decoded from.
public final class PacketEndTrim<Upstream: SampleSource, Codec: CodecKind>: SampleSource where Upstream.Buffer == EncodedPacket<Codec> {
    /// The packets, unchanged.
    public typealias Buffer = EncodedPacket<Codec>
    public var outputFormat: Codec.Format { upstream.outputFormat }
    private let upstream: Upstream
    private let end: MediaTime
    private var ended = false

    init(upstream: Upstream, end: MediaTime) {
        self.upstream = upstream
        self.end = end
    }

    public func next() async throws -> EncodedPacket<Codec>? {
        guard !ended, let packet = try await upstream.next() else { return nil }
        if let time = packet.decodeTime ?? packet.presentationTime, time >= end {
            ended = true
            return nil
        }
        return packet
    }
}

extension SampleSource {
    /// These packets up to `end` (those decoded before it): a stream copy cut to a length.
    public func ending<Codec: CodecKind>(at end: MediaTime) -> PacketEndTrim<Self, Codec> where Buffer == EncodedPacket<Codec> {
        PacketEndTrim(upstream: self, end: end)
    }
}
