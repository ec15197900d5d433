/// Turns H.264/H.265 packets as MP4 stores them (length-prefixed NAL units, parameter sets in the
/// `avcC`/`hvcC` extradata) into Annex B, what raw `.h264`/`.h265` files and decoders without
/// extradata need: start codes, and the VPS/SPS/PPS repeated in order before every keyframe.
/// FFmpeg's `h264_mp4toannexb`/`hevc_mp4toannexb` bitstream filters do the work. Packets that
/// are already Annex B pass through untouched.
public final class AnnexBConverter<Upstream: SampleSource, C: VideoCodecKind>: SampleSource
where Upstream.Buffer == EncodedVideoPacket<C> {
    public typealias Buffer = EncodedVideoPacket<C>
    private let sharedFormat: SharedFormat<EncodedVideoFormat>
    public var outputFormat: EncodedVideoFormat { sharedFormat.value }
    private let upstream: Upstream
    private let filter: BitstreamFilter?
    private let output: Packet
    private var upstreamEnded = false

    public init(upstream: Upstream) throws {
        self.upstream = upstream
        let input = upstream.outputFormat
        output = try Packet()
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

    /// A seek mark waiting for the filter's next output.
    private var pendingMark: SeekMark?

    public func next() async throws -> EncodedVideoPacket<C>? {
        try checkCancellation()
        guard let filter else {
            return try await upstream.next()
        }
        while true {
            switch try filter.receive(into: output) {
            case .got:
                defer { pendingMark = nil }
                return EncodedVideoPacket(packet: try output.takeReference(), format: sharedFormat, seekMark: pendingMark)
            case .drained:
                return nil
            case .needsInput:
                guard !upstreamEnded else { return nil }
                if let buffer = try await upstream.next() {
                    if let mark = buffer.seekMark { pendingMark = mark }
                    try filter.send(buffer.packet)
                } else {
                    upstreamEnded = true
                    try filter.send(nil)
                }
            }
        }
    }
}

extension SampleSource {
    /// This H.264/H.265 stream in Annex B framing (see `AnnexBConverter`).
    public func annexB<C: VideoCodecKind>() throws -> AnnexBConverter<Self, C> where Buffer == EncodedVideoPacket<C> {
        try AnnexBConverter(upstream: self)
    }
}
