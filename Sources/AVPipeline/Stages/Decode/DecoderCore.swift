internal import CFFmpeg

/// An encoded packet a decoder takes: its FFmpeg packet, and the demuxer seek it is the first after.
protocol DecodablePacket: SampleBuffer {
    var packet: Packet { get }
    var seekMark: SeekMark? { get }
}

extension EncodedAudioPacket: DecodablePacket {}
extension EncodedVideoPacket: DecodablePacket {}

/// What one kind of decoder adds to `DecoderCore`: what it makes of each decoded frame (timestamps,
/// trimming, conversion) and what it resets on a seek. The core owns the codec and the loop.
protocol DecoderMedium {
    /// What the decoder hands out per frame (a `PCMBuffer`, a `VideoFrame`).
    associatedtype Output

    /// Whether any frame has come out yet: a stream that fails before that is not decodable.
    var decodedAnything: Bool { get }
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
final class DecoderCore<Upstream: SampleSource, Medium: DecoderMedium> where Upstream.Buffer: DecodablePacket {
    let codec: CodecContext
    /// The codec's own part; changed only between frames.
    private(set) var medium: Medium
    /// Packets taken from upstream.
    private(set) var packets = 0
    private(set) var damaged = DamagedPackets()
    /// The demuxer seek (`SeekMark.generation`) the frames handed out since belong to; 0 before any.
    private(set) var seekGeneration = 0

    private let upstream: Upstream
    private let codecName: Codec
    private var pending: Frame?
    private var upstreamEnded = false
    private var drained = false

    /// `codec` is open; `codecName` names the stream in errors.
    init(upstream: Upstream, codec: CodecContext, codecName: Codec, medium: Medium) {
        self.upstream = upstream
        self.codec = codec
        self.codecName = codecName
        self.medium = medium
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
                    try damaged.verifyAtEnd(decodedAnything: medium.decodedAnything, codec: codecName)
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
        try damaged.check(decodedAnything: medium.decodedAnything, codec: codecName, at: position)
    }
}

extension CodecContext {
    /// Opens a decoder for a stream with `parameters` (stamped in `timeBase`); `configure` sets its
    /// options (threads…) before it opens. A codec FFmpeg cannot open is described by `DecoderRefusal`.
    static func openDecoder(_ codec: UnsafePointer<AVCodec>, name: Codec, parameters: CodecParameters, timeBase: Rational,
                            configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void = { _ in }) throws -> CodecContext {
        let decoder = try CodecContext(codec: codec)
        let context = decoder.pointer
        try check(avcodec_parameters_to_context(context, parameters.pointer), "avcodec_parameters_to_context")
        context.pointee.pkt_timebase = timeBase.avValue
        try configure(context)
        do {
            try decoder.open()
        } catch {
            throw DecoderRefusal.describe(error, codec: name, parameters: parameters)
        }
        return decoder
    }
}
