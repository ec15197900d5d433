/// Turns a stream whose codec is known only at run time (what a demuxer yields) into a typed one:
/// it checks the codec once, when built, and then re-tags each packet without copying it. This is
/// how a demuxed track is fed to a stage that takes one codec only (`ADTSWriter` takes AAC).
public final class AudioCodecNarrowing<Upstream: SampleSource, Target: AudioCodecKind>: SampleSource, ImmediatePacketSource
where Upstream.Buffer == EncodedAudioPacket<AnyAudioCodec> {
    public typealias Buffer = EncodedAudioPacket<Target>
    private let upstream: Upstream
    /// The upstream when it is a demuxed track reading on demand: its packets are then read and
    /// tagged here directly (no `async` hop, no re-tagged copy: most of a copy job's own work).
    private let onDemandTrack: DemuxedAudioTrack?
    private let packetType = EncodedAudioPacket<Target>.self  // its metadata, looked up once
    public var outputFormat: EncodedAudioFormat { upstream.outputFormat }

    public init(upstream: Upstream, to _: Target.Type = Target.self) throws {
        guard Target.accepts(upstream.outputFormat.codec) else {
            throw AVPipelineError.unsupportedCodec("expected \(Target.self) audio, the stream holds \(upstream.outputFormat.codec)")
        }
        self.upstream = upstream
        onDemandTrack = (upstream as? DemuxedAudioTrack).flatMap { $0.readsOnDemand ? $0 : nil }
    }

    public func next() async throws -> EncodedAudioPacket<Target>? {
        if let onDemandTrack { return try onDemandTrack.nextOnDemand(as: packetType) }
        return try await upstream.next()?.retagged(as: Target.self)
    }

    var isImmediate: Bool { onDemandTrack != nil }
    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        try onDemandTrack?.nextPacketImmediately(reusing: blank)
    }
}

/// The video counterpart of `AudioCodecNarrowing`.
public final class VideoCodecNarrowing<Upstream: SampleSource, Target: VideoCodecKind>: SampleSource, ImmediatePacketSource
where Upstream.Buffer == EncodedVideoPacket<AnyVideoCodec> {
    public typealias Buffer = EncodedVideoPacket<Target>
    private let upstream: Upstream
    /// The upstream when it is a demuxed track reading on demand: its packets are then read and
    /// tagged here directly (no `async` hop, no re-tagged copy: most of a copy job's own work).
    private let onDemandTrack: DemuxedVideoTrack?
    private let packetType = EncodedVideoPacket<Target>.self  // its metadata, looked up once
    public var outputFormat: EncodedVideoFormat { upstream.outputFormat }

    public init(upstream: Upstream, to _: Target.Type = Target.self) throws {
        guard Target.accepts(upstream.outputFormat.codec) else {
            throw AVPipelineError.unsupportedCodec("expected \(Target.self) video, the stream holds \(upstream.outputFormat.codec)")
        }
        self.upstream = upstream
        onDemandTrack = (upstream as? DemuxedVideoTrack).flatMap { $0.readsOnDemand ? $0 : nil }
    }

    public func next() async throws -> EncodedVideoPacket<Target>? {
        if let onDemandTrack { return try onDemandTrack.nextOnDemand(as: packetType) }
        return try await upstream.next()?.retagged(as: Target.self)
    }

    var isImmediate: Bool { onDemandTrack != nil }
    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        try onDemandTrack?.nextPacketImmediately(reusing: blank)
    }
}

extension SampleSource where Buffer == EncodedAudioPacket<AnyAudioCodec> {
    /// This stream as `Target` packets; throws `unsupportedCodec` if it holds another codec.
    public func requiring<Target: AudioCodecKind>(_ target: Target.Type) throws -> AudioCodecNarrowing<Self, Target> {
        try AudioCodecNarrowing(upstream: self, to: target)
    }
}

extension SampleSource where Buffer == EncodedVideoPacket<AnyVideoCodec> {
    public func requiring<Target: VideoCodecKind>(_ target: Target.Type) throws -> VideoCodecNarrowing<Self, Target> {
        try VideoCodecNarrowing(upstream: self, to: target)
    }
}
