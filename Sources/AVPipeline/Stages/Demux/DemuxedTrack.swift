/// Read-ahead and I/O statistics of one demuxed track.
public struct DemuxStatistics: Sendable {
    /// The most packets that may wait between the reader and the consumer (`maxBufferedPacketsPerTrack`).
    public let bufferBound: Int
    /// The most packets that ever waited at once; never above `bufferBound` (0 when read on demand).
    public let highWaterMark: Int
    /// Packets of this track read from the file so far.
    public let packetsRead: Int
    /// Packets of other tracks this track's reader was handed: 0, since they are discarded at the source.
    public let otherTrackPackets: Int
    /// Bytes this track's reader has read from the file (including container overhead).
    public let bytesRead: Int64
    /// Whether the reader reached the end of the track.
    public let reachedEnd: Bool
}

/// What the audio and video tracks share: the reader (called on demand, or run on its own task with a
/// bounded hand-off), and the status bookkeeping. Pulled by one task at a time (like every `SampleSource`).
final class DemuxedTrackCore {
    let info: TrackInfo
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    @exclusivity(unchecked) private var reader: TrackReader?
    private let handoff: BoundedHandoff
    private let counters: TrackCounters
    private let interrupt: InterruptFlag
    private let status: DemuxStatusCell
    private let readsInBackground: Bool
    private let seekCell: SeekRequests
    @exclusivity(unchecked) private var seekGeneration = 0
    @exclusivity(unchecked) private var started = false
    @exclusivity(unchecked) private var finished = false

    init(demuxer: Demuxer, track: TrackInfo) throws(AVPipelineError) {
        info = track
        interrupt = InterruptFlag(parent: demuxer.interrupt)
        counters = TrackCounters()
        status = demuxer.statusCell
        handoff = BoundedHandoff(capacity: demuxer.options.maxBufferedPacketsPerTrack)
        readsInBackground = demuxer.options.readsInBackground
        seekCell = demuxer.seekCell
        reader = try TrackReader(source: demuxer.source, policy: demuxer.options.inputPolicy, track: track, streamCount: demuxer.info.tracks.count,
                                 interrupt: interrupt, connectionLog: demuxer.connectionLog, counters: counters,
                                 strict: demuxer.options.strict, status: demuxer.statusCell, shared: demuxer.shared,
                                 probed: demuxer.probed.take(), shortfall: demuxer.shortfall, fileEnd: demuxer.declaredEnd,
                                 durationDeclared: demuxer.declaresTrackDurations)
        status.trackCreated()
    }

    deinit {
        // Interrupts a blocked read and wakes a reader waiting for room; the reading task then ends
        // and frees its context.
        interrupt.raise()
        handoff.abandon()
        if !finished { status.trackAbandoned(started: started) }
    }

    /// Whether the demuxer found the track whole up to bytes at its end that are no media (junk
    /// after a raw ADTS stream), so that packets read from them may be left out of a copy.
    var endsInTrailingDamage: Bool {
        status.truncations.contains { $0.track == info.index && $0.trailingBytes != nil }
    }

    var statistics: DemuxStatistics {
        DemuxStatistics(bufferBound: handoff.capacity, highWaterMark: handoff.highWaterMark,
                        packetsRead: counters.packetsRead.load(ordering: .relaxed),
                        otherTrackPackets: counters.otherTrackPackets.load(ordering: .relaxed),
                        bytesRead: counters.bytesRead.load(ordering: .relaxed),
                        reachedEnd: counters.reachedEnd.load(ordering: .relaxed))
    }

    /// Whether packets are read on the pulling task itself (no background reader): then
    /// `nextOnDemand()` gives them without an `async` call, which costs more per packet (a task
    /// frame, the executor check) than the rest of what a copy job does on our side.
    var readsOnDemand: Bool { !readsInBackground }

    /// The next packet, with the seek mark when it is the first after a seek; nil at the end.
    func next() async throws(AVPipelineError) -> PulledPacket? {
        guard readsInBackground else { return try nextOnDemand() }
        do {
            let mark = try prepareToPull()
            if finished { return nil }
            return ended(try await handoff.pop().map { unsafeDowncast($0.value, to: Packet.self) }, mark: mark)
        } catch {
            throw failed(error as? AVPipelineError ?? .cancelled)
        }
    }

    /// `next()` when `readsOnDemand`; the packet is read into `blank` when given (see
    /// `ImmediatePacketSource.nextPacketImmediately(reusing:)`).
    func nextOnDemand(reusing blank: Packet? = nil) throws(AVPipelineError) -> PulledPacket? {
        do {
            let mark = try prepareToPull()
            if finished { return nil }
            return ended(try reader?.nextPacket(reusing: blank), mark: mark)
        } catch {
            throw failed(error)
        }
    }

    /// What comes before each pull: a seek asked meanwhile, the start, cancellation.
    private func prepareToPull() throws(AVPipelineError) -> SeekMark? {
        let mark = try seekIfAsked()
        if finished { return mark }
        if !started { start() }
        if Task.isCancelled || interrupt.isRaised { throw .cancelled }
        return mark
    }

    /// The pulled packet with its mark; nil, and the track marked ended, at the end.
    private func ended(_ packet: Packet?, mark: SeekMark?) -> PulledPacket? {
        guard let packet else {
            finished = true
            status.trackEnded()
            return nil
        }
        return PulledPacket(packet: packet, mark: mark)
    }

    /// Ends the track on `failure` (stopping the reader) and returns it to throw.
    private func failed(_ failure: AVPipelineError) -> AVPipelineError {
        finished = true
        interrupt.raise()
        handoff.abandon()
        status.trackFailed(failure)
        return failure
    }

    /// Carries out a seek asked since the last pull; a track that had ended reads again.
    private func seekIfAsked() throws(AVPipelineError) -> SeekMark? {
        guard let request = seekCell.latest(after: seekGeneration) else { return nil }
        seekGeneration = request.generation
        guard let reader else { return nil }  // background mode refuses seeks
        try reader.seek(to: request.mark.target)
        if finished {
            finished = false
            status.trackCreated()
            status.trackStarted()
        }
        return request.mark
    }

    private func start() {
        started = true
        status.trackStarted()
        guard readsInBackground, let reader else { return }
        self.reader = nil
        // The reader is handed over exactly once, when reading starts; the track never touches it again.
        let transfer = OwnershipTransfer(reader)
        let handoff = handoff
        Task.detached {
            await transfer.value.run(into: handoff)
        }
    }
}

/// One track of a demuxed file: a pull source of its encoded packets, with timestamps in the track's
/// time base. A demuxer's tracks are tagged with their medium's "any codec" kind
/// (`DemuxedAudioTrack`, `DemuxedVideoTrack`, `DemuxedSubtitleTrack`); narrow one with
/// `.requiring(AAC.self)` for stages that take one codec only.
public final class DemuxedTrack<Codec: CodecKind>: SampleSource, ImmediatePacketSource {
    public typealias Buffer = EncodedPacket<Codec>
    private let sharedFormat: SharedFormat<Codec.Format>
    /// The format of every packet of the track.
    public var outputFormat: Codec.Format { sharedFormat.value }
    private let core: DemuxedTrackCore
    private let packetType = EncodedPacket<Codec>.self  // its metadata, looked up once

    init(demuxer: Demuxer, track: TrackInfo, format: Codec.Format) throws(AVPipelineError) {
        core = try DemuxedTrackCore(demuxer: demuxer, track: track)
        sharedFormat = SharedFormat(format)
    }

    /// See `DemuxedTrackCore.endsInTrailingDamage`.
    var endsInTrailingDamage: Bool { core.endsInTrailingDamage }

    /// What the container says of the track.
    public var info: TrackInfo { core.info }
    /// The track's read-ahead and I/O statistics so far.
    public var statistics: DemuxStatistics { core.statistics }

    public func next() async throws -> EncodedPacket<Codec>? {
        let pulled = core.readsOnDemand ? try core.nextOnDemand() : try await core.next()
        return pulled.map { packetType.init(packet: $0.packet, format: sharedFormat, seekMark: $0.mark) }
    }

    /// Whether `nextOnDemand(as:)` may be used: the track reads on the pulling task.
    var readsOnDemand: Bool { core.readsOnDemand }

    /// `next()` for a narrowing of this track when it `readsOnDemand`: each packet made with the
    /// narrowed tag at once, without an `async` call or a re-tagged copy. The caller passes the
    /// packet type it keeps: naming `EncodedPacket<Tag>` here, in code not specialized for `Tag`,
    /// would look its metadata up in the runtime's cache for every packet.
    func nextOnDemand<Tag: CodecKind>(as type: EncodedPacket<Tag>.Type) throws(AVPipelineError) -> EncodedPacket<Tag>?
    where Tag.Format == Codec.Format {
        guard let pulled = try core.nextOnDemand() else { return nil }
        return type.init(packet: pulled.packet, format: sharedFormat, seekMark: pulled.mark)
    }

    var isImmediate: Bool { core.readsOnDemand }
    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        try core.nextOnDemand(reusing: blank)
    }
}

/// One audio track of a demuxed file (AAC, MP3, …). Narrow it with `.requiring(AAC.self)` for AAC-only stages.
public typealias DemuxedAudioTrack = DemuxedTrack<AnyAudioCodec>

/// One video track of a demuxed file, its packets tagged with their NAL framing (length-prefixed as
/// MP4 stores H.264/H.265, or Annex B as raw streams and MPEG-TS do).
public typealias DemuxedVideoTrack = DemuxedTrack<AnyVideoCodec>

/// One subtitle track of a demuxed file: its encoded cues, for copying them on.
public typealias DemuxedSubtitleTrack = DemuxedTrack<AnySubtitleCodec>
