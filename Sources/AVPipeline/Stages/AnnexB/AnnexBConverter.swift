/// Turns H.264/H.265 packets as MP4 stores them (length-prefixed NAL units, parameter sets in the
/// `avcC`/`hvcC` extradata) into Annex B, what raw `.h264`/`.h265` files and decoders without
/// extradata need: start codes, and the VPS/SPS/PPS repeated in order before every keyframe.
/// FFmpeg's `h264_mp4toannexb`/`hevc_mp4toannexb` bitstream filters do the work. Packets that
/// are already Annex B pass through untouched.
public final class AnnexBConverter<Upstream: SampleSource, C: VideoCodecKind>: SampleSource, ImmediatePacketSource
where Upstream.Buffer == EncodedVideoPacket<C> {
    /// Packets of the same codec, in Annex B framing.
    public typealias Buffer = EncodedVideoPacket<C>
    private let sharedFormat: SharedFormat<EncodedVideoFormat>
    public var outputFormat: EncodedVideoFormat { sharedFormat.value }
    private let upstream: Upstream
    /// The upstream, when it gives its packets without suspending (see `ImmediatePacketSource`).
    private let immediateUpstream: ImmediatePacketSource?
    private let filter: BitstreamFilter?
    private let packetType = EncodedVideoPacket<C>.self  // its metadata, looked up once
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    /// A seek mark waiting for the filter's next output.
    @exclusivity(unchecked) private var pendingMark: SeekMark?

    /// Converts `upstream`'s packets. Throws `.unsupportedCodec` for a codec other than H.264 or H.265.
    public init(upstream: Upstream) throws {
        self.upstream = upstream
        immediateUpstream = upstream.immediatePackets
        let input = upstream.outputFormat
        guard input.framing == .lengthPrefixed else {
            filter = nil
            sharedFormat = SharedFormat(input)
            return
        }
        let name: String
        switch input.codec {
        case .h264: name = "h264_mp4toannexb"
        case .hevc: name = "hevc_mp4toannexb"
        default: throw AVPipelineError.unsupportedCodec("Annex B conversion is for H.264/H.265, not \(input.codec)")
        }
        let filter = try BitstreamFilter(name: name, parameters: input.parameters, timeBase: input.timeBase)
        self.filter = filter
        var format = EncodedVideoFormat(parameters: try filter.outputParameters(), timeBase: filter.outputTimeBase,
                                        frameRate: input.frameRate, framing: .annexB)
        format.metadata = input.metadata
        format.displayMatrix = input.displayMatrix
        format.sampleAspectRatio = input.sampleAspectRatio
        sharedFormat = SharedFormat(format)
    }

    public func next() async throws -> EncodedVideoPacket<C>? {
        if immediateUpstream != nil { return try nextPacketImmediately(reusing: nil).map(typed) }
        try checkCancellation()
        guard let filter else { return try await upstream.next() }
        while true {
            switch try step(filter) {
            case .output(let pulled): return pulled.map(typed)
            case .needsInput: try supply(try await upstream.next().map { PulledPacket(packet: $0.packet, mark: $0.seekMark) }, to: filter)
            }
        }
    }

    var isImmediate: Bool { immediateUpstream != nil }

    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        guard let immediateUpstream else { preconditionFailure("pulled immediately, but the upstream is not immediate") }
        guard let filter else { return try immediateUpstream.nextPacketImmediately(reusing: blank) }
        // The filter's outputs go into the owners its inputs came in, so `blank` is passed upstream.
        var blank = blank
        while true {
            switch try step(filter) {
            case .output(let pulled): return pulled
            case .needsInput: try supply(try immediateUpstream.nextPacketImmediately(reusing: blank.take()), to: filter)
            }
        }
    }

    private func typed(_ pulled: PulledPacket) -> EncodedVideoPacket<C> {
        packetType.init(packet: pulled.packet, format: sharedFormat, seekMark: pulled.mark)
    }

    /// Takes the filter's next output, if it has one before it needs more input (the filter moves
    /// the packet owners; see `BitstreamFilter.next()`).
    private func step(_ filter: BitstreamFilter) throws(AVPipelineError) -> AnnexBStep {
        switch try filter.next() {
        case .packet(let owner): return .output(PulledPacket(packet: owner, mark: pendingMark.take()))
        case .drained: return .output(nil)
        case .needsInput: return .needsInput
        }
    }

    /// Gives the filter the upstream's next packet, or tells it the input ended (`nil`).
    private func supply(_ input: consuming PulledPacket?, to filter: BitstreamFilter) throws(AVPipelineError) {
        guard let input else { return try filter.supply(nil) }
        if let mark = input.mark { pendingMark = mark }
        try filter.supply(input.packet)
    }
}

/// What the filter gives next. Outside the generic class: nested, it would be generic too, and its
/// payload copied through the runtime's value witnesses on every packet.
private enum AnnexBStep { case output(PulledPacket?), needsInput }

extension SampleSource {
    /// This H.264/H.265 stream in Annex B framing (see `AnnexBConverter`).
    public func annexB<C: VideoCodecKind>() throws -> AnnexBConverter<Self, C> where Buffer == EncodedVideoPacket<C> {
        try AnnexBConverter(upstream: self)
    }
}
