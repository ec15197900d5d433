/// Turns a stream whose codec is known only at run time (what a demuxer yields) into a typed one:
/// it checks the codec once, when built, and then re-tags each packet without copying it. This is
/// how a demuxed track is fed to a stage that takes one codec only (`ADTSWriter` takes AAC). The
/// upstream is of `Target`'s medium (`AnyAudioCodec` packets for an audio `Target`).
public final class CodecNarrowing<Upstream: SampleSource, Target: CodecKind>: SampleSource, ImmediatePacketSource
where Upstream.Buffer == EncodedPacket<Target.Format.AnyCodec> {
    public typealias Buffer = EncodedPacket<Target>
    private let upstream: Upstream
    /// The upstream when it is a demuxed track reading on demand: its packets are then read and
    /// tagged here directly (no `async` hop, no re-tagged copy: most of a copy job's own work).
    private let onDemandTrack: DemuxedTrack<Target.Format.AnyCodec>?
    private let packetType = EncodedPacket<Target>.self  // its metadata, looked up once
    /// The format of the upstream, and so of every packet.
    public var outputFormat: Target.Format { upstream.outputFormat }

    /// Fails with `unsupportedCodec` when the upstream holds a codec `Target` does not accept.
    public init(upstream: Upstream, to _: Target.Type = Target.self) throws {
        let codec = upstream.outputFormat.codec
        guard Target.accepts(codec) else {
            throw AVPipelineError.unsupportedCodec("expected \(Target.self) \(Target.Format.trackKind.rawValue), the stream holds \(codec)")
        }
        self.upstream = upstream
        onDemandTrack = (upstream as? DemuxedTrack<Target.Format.AnyCodec>).flatMap { $0.readsOnDemand ? $0 : nil }
    }

    public func next() async throws -> EncodedPacket<Target>? {
        if let onDemandTrack { return try onDemandTrack.nextOnDemand(as: packetType) }
        return try await upstream.next()?.retagged(as: Target.self)
    }

    var isImmediate: Bool { onDemandTrack != nil }
    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        try onDemandTrack?.nextPacketImmediately(reusing: blank)
    }
}

/// The narrowing of an audio stream (see `CodecNarrowing`).
public typealias AudioCodecNarrowing<Upstream: SampleSource, Target: AudioCodecKind> = CodecNarrowing<Upstream, Target>
where Upstream.Buffer == EncodedAudioPacket<AnyAudioCodec>

/// The narrowing of a video stream (see `CodecNarrowing`).
public typealias VideoCodecNarrowing<Upstream: SampleSource, Target: VideoCodecKind> = CodecNarrowing<Upstream, Target>
where Upstream.Buffer == EncodedVideoPacket<AnyVideoCodec>

extension SampleSource {
    /// This stream as `Target` packets; throws `unsupportedCodec` if it holds another codec.
    public func requiring<Target: CodecKind>(_ target: Target.Type) throws -> CodecNarrowing<Self, Target>
    where Buffer == EncodedPacket<Target.Format.AnyCodec> {
        try CodecNarrowing(upstream: self, to: target)
    }
}
