internal import CFFmpeg

/// The codec-erased face of a typed input: the Muxer only needs its packets.
protocol MuxPacketSource: AnyObject {
    func nextPacket() async throws -> Packet?
    /// The input, when its packets can be pulled without suspending (see `ImmediatePacketSource`).
    var immediate: ImmediatePacketSource? { get }
    /// At its end: whether the input was whole up to junk at the end of the file (`Truncation.trailingBytes`).
    var endedInTrailingDamage: Bool { get }
}

final class MuxSource<Upstream: SampleSource>: MuxPacketSource where Upstream.Buffer: PacketBacked {
    private let upstream: Upstream
    let immediate: ImmediatePacketSource?

    init(_ upstream: Upstream) {
        self.upstream = upstream
        immediate = upstream.immediatePackets
    }

    func nextPacket() async throws -> Packet? { try await upstream.next()?.packet }

    var endedInTrailingDamage: Bool {
        (upstream as? DemuxedAudioTrack)?.endsInTrailingDamage ?? false
    }
}

/// One input of a Muxer: its packets, codec description and time base, plus the framing fix the
/// container needs. ADTS-framed AAC goes through FFmpeg's `aac_adtstoasc` (which also produces the
/// AudioSpecificConfig the `esds` box needs); Annex B H.264/H.265 is left to the mp4 muxer, which
/// converts start codes to length prefixes and builds `avcC`/`hvcC` from in-band parameter sets.
final class MuxTrack {
    enum Kind: String { case audio, video, subtitle }

    let kind: Kind
    /// Names the input in errors (a file path when known).
    let label: String
    private let source: MuxPacketSource
    private let inputParameters: CodecParameters
    private let inputTimeBase: Rational
    private let immediate: ImmediatePacketSource?
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    @exclusivity(unchecked) private var filter: BitstreamFilter?
    /// A packet ready to go out before anything else is pulled.
    @exclusivity(unchecked) private var lookahead: Packet?
    @exclusivity(unchecked) private var upstreamEnded = false
    /// The first packet `aac_adtstoasc` rejected (each is left out): an error at the
    /// end, unless the input turns out whole up to junk at its end, where FFmpeg read it from (as
    /// the decoders skip such a packet; ffmpeg's own copy stops there, having written the file).
    @exclusivity(unchecked) private var rejectedPacket: AVPipelineError?
    @exclusivity(unchecked) private var nextDTS: Int64?
    private let fallbackFrameRate: Rational
    private let forcedFrameRate: Rational?
    /// The frame rate the input's container states (times B-frame streams lacking decode times).
    private let declaredFrameRate: Rational?
    @exclusivity(unchecked) private var rawTiming: RawVideoTiming?

    /// Tags, display matrix and pixel shape the output stream gets (copied from the input's track).
    let metadata: [String: String]
    let displayMatrix: [Int32]?
    let sampleAspectRatio: Rational?

    init(kind: Kind, label: String, source: MuxPacketSource, parameters: CodecParameters, timeBase: Rational,
         fallbackFrameRate: Rational = Rational(25, 1), forcedFrameRate: Rational? = nil, declaredFrameRate: Rational? = nil,
         metadata: [String: String] = [:], displayMatrix: [Int32]? = nil, sampleAspectRatio: Rational? = nil) {
        self.kind = kind
        self.sampleAspectRatio = sampleAspectRatio
        self.declaredFrameRate = declaredFrameRate
        self.forcedFrameRate = forcedFrameRate
        self.metadata = metadata
        self.displayMatrix = displayMatrix
        self.fallbackFrameRate = fallbackFrameRate
        self.label = label
        self.source = source
        immediate = source.immediate
        inputParameters = parameters
        inputTimeBase = timeBase
    }

    var codecID: AVCodecID { inputParameters.codecID }

    /// The parameters and time base the output stream gets; valid after `prepare()`.
    @exclusivity(unchecked) private(set) var parameters: CodecParameters!
    @exclusivity(unchecked) private(set) var timeBase: Rational!

    /// Reads the first packet, which decides whether a bitstream filter is needed, and settles the
    /// stream's parameters (a filter may only produce extradata once it has seen a packet).
    func prepare() async throws {
        let first = try await source.nextPacket()
        if let first, codecID == AV_CODEC_ID_AAC, Self.startsWithADTSSync(first) {
            let filter = try BitstreamFilter(name: "aac_adtstoasc", parameters: inputParameters, timeBase: inputTimeBase)
            self.filter = filter
            try supply(first, filter: filter)
            let filtered = try await nextUntimed()
            // aac_adtstoasc hands the AudioSpecificConfig over as side data of its first packet;
            // the stream needs it before the header is written (a fragmented moov comes first).
            parameters = try Self.parameters(try filter.outputParameters(), withExtradataOf: filtered)
            // Now in the header, it must not arrive again as "new": the Matroska muxer would
            // rewrite its CodecPrivate in place, over the bytes after it.
            if let filtered { av_packet_shrink_side_data(filtered.pointer, AV_PKT_DATA_NEW_EXTRADATA, 0) }
            timeBase = filter.outputTimeBase
            lookahead = filtered
        } else if let first, kind == .video, codecID == AV_CODEC_ID_H264 || codecID == AV_CODEC_ID_HEVC,
                  first.pointer.pointee.dts == avp_nopts_value(), first.pointer.pointee.pts == avp_nopts_value() {
            // A raw elementary stream: no timestamps at all.
            let timing = try RawVideoTiming(codec: codecID, first: first, forcedFrameRate: forcedFrameRate, fallbackFrameRate: fallbackFrameRate,
                                            reorderDelay: Int(inputParameters.pointer.pointee.video_delay), label: label)
            rawTiming = timing
            parameters = inputParameters
            timeBase = timing.timeBase
        } else {
            parameters = inputParameters
            timeBase = inputTimeBase
            lookahead = first
            upstreamEnded = first == nil
        }
        try validate(first: first)
    }

    /// The next packet for the container, timestamps in `timeBase`; nil at the end.
    func next() async throws -> Packet? {
        try timed(try await nextUntimed())
    }

    /// Whether `nextImmediately()` may be called: the input is an immediate packet source.
    var isImmediate: Bool { immediate != nil }

    /// `next()` without suspending, when `isImmediate`: the copy jobs' per-packet path. `blank` is
    /// an owner the caller is done with, for the input to read into (see `ImmediatePacketSource`).
    func nextImmediately(reusing blank: Packet?) throws -> Packet? {
        guard let immediate else { preconditionFailure("pulled immediately, but the input is not immediate") }
        let filter = filter  // read once: each read of the stored reference retains it
        var blank = blank
        while true {
            switch try step(filter) {
            case .output(let packet): return try timed(packet)
            case .needsInput: try supply(try immediate.nextPacketImmediately(reusing: blank.take())?.packet, filter: filter)
            }
        }
    }

    private func nextUntimed() async throws -> Packet? {
        let filter = filter
        while true {
            switch try step(filter) {
            case .output(let packet): return packet
            case .needsInput: try supply(try await source.nextPacket(), filter: filter)
            }
        }
    }

    /// `packet` with the timestamps it lacks (raw video is timed by `RawVideoTiming` instead).
    private func timed(_ packet: Packet?) throws -> Packet? {
        guard let packet else { return nil }
        if rawTiming == nil { try fillTimestamps(packet) }
        return packet
    }

    private enum Step { case output(Packet?), needsInput }

    /// The next packet from what this track holds, or `.needsInput` when it must pull first.
    /// `filter` is this track's (passed in, read once per pull). Packets are moved in and out of
    /// `lookahead` and the filter (`take()`), not copied: a copy is a retain and a release.
    private func step(_ filter: BitstreamFilter?) throws(AVPipelineError) -> Step {
        if let waiting = lookahead.take() { return .output(waiting) }
        if let rawTiming {
            if let ready = try rawTiming.nextReady() { return .output(ready) }
            return upstreamEnded ? .output(nil) : .needsInput
        }
        guard let filter else { return upstreamEnded ? .output(nil) : .needsInput }
        let result: BitstreamFilter.Output
        do {
            result = try filter.next()  // the packet owners move through the filter
        } catch {
            if case .outOfMemory = error { throw error }
            rejectedPacket = rejectedPacket ?? .invalidData(path: label, position: nil, reason: "not a valid ADTS frame (aac_adtstoasc: \(error))")
            return upstreamEnded ? try ended() : .needsInput
        }
        switch result {
        case .packet(let filtered): return .output(filtered)
        case .drained: return try ended()
        case .needsInput: return .needsInput
        }
    }

    /// The end of the filtered packets: an error if one was left out anywhere but in junk at the end.
    private func ended() throws(AVPipelineError) -> Step {
        if let rejectedPacket, !source.endedInTrailingDamage { throw rejectedPacket }
        return .output(nil)
    }

    /// Hands the input's next packet (nil: its end) to whatever this track does with it.
    private func supply(_ packet: Packet?, filter: BitstreamFilter?) throws {
        guard let packet else {
            upstreamEnded = true
            if let rawTiming { rawTiming.finish() } else if let filter { try filter.supply(nil) }
            return
        }
        if let rawTiming {
            rawTiming.add(packet)
        } else if let filter {
            let pts = packet.pointer.pointee.pts  // read first: a sent packet's contents move into the filter
            do {
                try filter.supply(packet)
            } catch {
                throw AVPipelineError.invalidData(path: label, position: MediaTime(ffmpeg: pts, timeBase: inputTimeBase),
                                                  reason: "not a valid ADTS frame (aac_adtstoasc: \(error))")
            }
        } else {
            lookahead = packet
        }
    }

    /// The frame rate raw video was timed with, and whether the stream declared it.
    var rawFrameRate: (rate: Rational, declared: Bool)? {
        rawTiming.map { ($0.frameRate, $0.frameRateIsDeclared) }
    }

    /// Raw streams may arrive without timestamps: continue from the previous packet's end. A
    /// container that stores no decode times (Matroska) leaves the first packets of a stream with
    /// B-frames without one: as ffmpeg does, the first decodes `video_delay` frames before it is
    /// shown and each next one a frame after the previous.
    private func fillTimestamps(_ packet: Packet) throws {
        let p = packet.pointer
        let none = avp_nopts_value()
        if p.pointee.dts == none && p.pointee.pts == none {
            guard let nextDTS else {
                if p.pointee.duration <= 0 {
                    throw AVPipelineError.invalidData(path: label, position: nil, reason: "packet without timestamp or duration")
                }
                p.pointee.dts = 0
                p.pointee.pts = 0
                self.nextDTS = p.pointee.duration
                return
            }
            p.pointee.dts = nextDTS
            p.pointee.pts = nextDTS
        } else if p.pointee.dts == none {
            let frame = p.pointee.duration > 0 ? p.pointee.duration : frameDuration ?? 0
            let first = p.pointee.pts - Int64(inputParameters.pointer.pointee.video_delay) * frame
            p.pointee.dts = kind == .video ? min(p.pointee.pts, nextDTS ?? first) : p.pointee.pts
        }
        if p.pointee.duration > 0 {
            nextDTS = p.pointee.dts + p.pointee.duration
        } else if kind == .video, let frameDuration {
            nextDTS = p.pointee.dts + frameDuration
        }
    }

    /// One frame in `timeBase`, when the frame rate is known (worked out once, after `prepare`).
    private lazy var frameDuration: Int64? = {
        guard let rate = forcedFrameRate ?? declaredFrameRate, rate.numerator > 0, rate.denominator > 0 else { return nil }
        let ticks = MediaTime(value: 1, timeBase: Rational(rate.denominator, rate.numerator)).converted(to: timeBase).value
        return ticks > 0 ? ticks : nil
    }()

    /// Catches inputs the container cannot describe, before anything is written.
    private func validate(first: Packet?) throws {
        guard first != nil || rawTiming != nil || kind == .subtitle else {
            throw AVPipelineError.invalidData(path: label, position: nil, reason: "the \(kind.rawValue) input has no packets")
        }
        let p = parameters.pointer.pointee
        if kind == .video && (p.width <= 0 || p.height <= 0) {
            throw AVPipelineError.invalidData(path: label, position: nil,
                                              reason: "no usable sequence parameter set (frame size unknown)")
        }
        if codecID == AV_CODEC_ID_AAC && p.extradata_size == 0 {
            throw AVPipelineError.invalidData(path: label, position: nil,
                                              reason: "AAC without AudioSpecificConfig or ADTS headers")
        }
    }

    /// A copy of `base` whose extradata is the packet's new-extradata side data, when it has some.
    private static func parameters(_ base: CodecParameters, withExtradataOf packet: Packet?) throws(AVPipelineError) -> CodecParameters {
        var size = 0
        guard let packet, let side = av_packet_get_side_data(packet.pointer, AV_PKT_DATA_NEW_EXTRADATA, &size),
              size > 0 else { return base }
        // Filled here, before anyone else sees it: CodecParameters is shared read-only afterwards.
        let copy = try CodecParameters(copying: base.pointer)
        let p = copy.pointer
        av_freep(&p.pointee.extradata)
        guard let bytes = av_mallocz(size + Int(avp_input_buffer_padding_size())) else { throw .outOfMemory }
        memcpy(bytes, side, size)
        p.pointee.extradata = bytes.assumingMemoryBound(to: UInt8.self)
        p.pointee.extradata_size = Int32(size)
        return copy
    }

    /// `FFF` sync word with layer 00: an ADTS header rather than a raw AAC access unit.
    static func startsWithADTSSync(_ packet: Packet) -> Bool {
        guard packet.size >= 7, let data = packet.pointer.pointee.data else { return false }
        return data[0] == 0xFF && (data[1] & 0xF6) == 0xF0
    }
}
