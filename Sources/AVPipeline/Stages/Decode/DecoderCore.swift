internal import CFFmpeg

/// An encoded packet a decoder takes: its FFmpeg packet, and the demuxer seek it is the first after.
protocol DecodablePacket: SampleBuffer {
    var packet: Packet { get }
    var seekMark: SeekMark? { get }
}

extension EncodedPacket: DecodablePacket {}

/// What a decoder is opened from: the stream's codec parameters and the clock its packets are stamped in.
protocol DecodableFormat: Sendable {
    var codec: Codec { get }
    var parameters: CodecParameters { get }
    var timeBase: Rational { get }
    /// The codec, named for an error saying this FFmpeg has no decoder for it.
    var undecodableCodecName: String { get }
}

extension EncodedAudioFormat: DecodableFormat {
    var undecodableCodecName: String { "\(codec)" }
}

extension EncodedVideoFormat: DecodableFormat {
    /// A codec FFmpeg does not know at all is named by its tag.
    var undecodableCodecName: String {
        guard codec.avID == AV_CODEC_ID_NONE else { return "\(codec)" }
        return "a video codec FFmpeg does not know" + (TrackInfo.fourcc(parameters.pointer.pointee.codec_tag).map { " (tag \($0))" } ?? "")
    }
}

/// What one kind of decoder adds to `DecoderCore`: what it makes of each decoded frame (timestamps,
/// trimming, conversion) and what it resets on a seek. The core owns the codec and the loop.
protocol DecoderMedium {
    /// What the decoder hands out per frame (a `PCMBuffer`, a `VideoFrame`): a reference, so the
    /// core's loop, generic over the medium, passes it on without value-witness calls.
    associatedtype Output: SampleBuffer
    /// How `frames` counts (samples: `Int64`; pictures: `Int`).
    associatedtype FrameCount: BinaryInteger & Sendable

    /// Frames decoded so far (a stream that fails before the first is not decodable).
    var frames: FrameCount { get }
    /// Where the frame the codec is about to return starts, to name a failure (nil: unknown).
    var nextFramePosition: MediaTime? { get }

    /// Called before `packet` goes to the codec (to set per-packet codec options).
    mutating func prepare(_ codec: CodecContext, for packet: Packet)
    /// What the freshly decoded `frame` becomes; nil drops it (before an exact-seek target, past the end).
    mutating func output(from frame: Frame) throws(AVPipelineError) -> Output?
    /// The stream jumped (the codec has been flushed): forget the timeline, aim at `mark`'s target.
    mutating func startOver(at mark: SeekMark)
}

extension DecoderMedium {
    func prepare(_ codec: CodecContext, for packet: Packet) {}
}

/// The loop both decoders share: a codec context, packets in, frames out.
///
/// It runs libavcodec's send/receive loop, flushes the codec's delayed frames at end of stream and
/// starts over at each `SeekMark`. A packet the codec rejects as damaged is skipped and counted
/// (`DamagedPackets`: decoding goes on, as players do); only a stream that yields nothing but errors
/// fails. `Medium` turns each decoded frame into what the stage hands out.
final class DecoderCore<Upstream: SampleSource, Medium: DecoderMedium>
where Upstream.Buffer: DecodablePacket, Upstream.Buffer.Format: DecodableFormat {
    let codec: CodecContext
    /// The stream decoded.
    let format: Upstream.Buffer.Format
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    /// The medium's part: what each decoded frame becomes.
    @exclusivity(unchecked) private(set) var medium: Medium
    @exclusivity(unchecked) private var packets = 0
    @exclusivity(unchecked) private var damaged = DamagedPackets()
    /// The demuxer seek (`SeekMark.generation`) the frames handed out since belong to; 0 before any.
    @exclusivity(unchecked) private(set) var seekGeneration = 0

    private let upstream: Upstream
    @exclusivity(unchecked) private var pending: Frame?
    @exclusivity(unchecked) private var upstreamEnded = false
    @exclusivity(unchecked) private var drained = false

    /// Opens FFmpeg's decoder for `upstream`'s stream; `configure` sets its options (threads…) before
    /// it opens, `medium` is made from the open context. A codec FFmpeg cannot open is described by
    /// `DecoderRefusal`.
    init(upstream: Upstream, configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void = { _ in },
         medium makeMedium: (AVCodecContext, Upstream.Buffer.Format) throws -> Medium) throws {
        let format = upstream.outputFormat
        guard let decoder = avcodec_find_decoder(format.codec.avID) else {
            throw AVPipelineError.unsupportedCodec("\(format.undecodableCodecName): this FFmpeg build has no decoder for it")
        }
        codec = try CodecContext(codec: decoder)
        let context = codec.pointer
        try check(avcodec_parameters_to_context(context, format.parameters.pointer), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = format.timeBase.avValue
        try configure(context)
        do {
            try codec.open()
        } catch {
            throw DecoderRefusal.describe(error, codec: format.codec, parameters: format.parameters)
        }
        medium = try makeMedium(context.pointee, format)
        self.format = format
        self.upstream = upstream
    }

    /// What the decoder has done so far.
    var statistics: DecoderCounts {
        DecoderCounts(packets: packets, decoded: Int64(medium.frames), skippedPackets: damaged.skipped, firstSkip: damaged.firstSkip)
    }

    /// The next output, or nil at the end (until a seek makes the stream go on).
    func next() async throws -> Medium.Output? {
        while true {
            try checkCancellation()
            if !drained {
                let frame = try pending ?? Frame()
                switch try receive(into: frame) {
                case .got:
                    pending = nil
                    damaged.decoded()
                    if let output = try medium.output(from: frame) { return output }
                    continue
                case .drained:
                    drained = true
                    try damaged.verifyAtEnd(decodedAnything: medium.frames > 0, codec: format.codec)
                    return nil
                case .needsInput:
                    pending = frame
                }
            }
            if let packet = try await upstream.next() {
                packets += 1
                if let mark = packet.seekMark { startOver(at: mark) }
                // After the end, only a seek makes the stream go on.
                guard !drained else { return nil }
                try send(packet)
            } else if drained {
                return nil
            } else if !upstreamEnded {
                upstreamEnded = true
                _ = try codec.send(packet: nil)
            }
        }
    }

    /// The stream jumped: drop whatever the codec holds.
    private func startOver(at mark: SeekMark) {
        seekGeneration = mark.generation
        avcodec_flush_buffers(codec.pointer)
        drained = false
        upstreamEnded = false
        pending = nil
        medium.startOver(at: mark)
    }

    // MARK: - Send/receive with damaged packets as recoverable errors

    private func send(_ packet: Upstream.Buffer) throws(AVPipelineError) {
        medium.prepare(codec, for: packet.packet)
        do {
            // `.full` cannot happen: every send follows a receive that asked for input.
            _ = try codec.send(packet: packet.packet.pointer)
        } catch {
            // The codec consumed (and dropped) the packet; it is not sent again.
            try recordFailure(error, at: packet.presentationTime)
        }
    }

    private func receive(into frame: Frame) throws(AVPipelineError) -> CodecContext.ReceiveResult {
        while true {
            do {
                return try codec.receive(frame: frame)
            } catch {
                try recordFailure(error, at: medium.nextFramePosition)
            }
        }
    }

    private func recordFailure(_ error: AVPipelineError, at position: MediaTime?) throws(AVPipelineError) {
        try damaged.record(error, at: position)
        try damaged.check(decodedAnything: medium.frames > 0, codec: format.codec, at: position)
    }
}
