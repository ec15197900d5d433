/// A packet stage that can give its next packet without suspending: a demuxed track reading on
/// demand, and the stages that only re-tag or filter such a track's packets (codec narrowing, Annex B
/// conversion). Consumers that only need the packets (the one-track writers, the Muxer) pull through
/// it when they find one.
///
/// Why: every `async` stage in a chain costs a task frame and an executor check per packet, which in
/// a copy job is more of avpipe's own work than everything else it does. Here the whole chain runs as
/// plain calls, and no typed buffer object is made between stages. The typed `next()` stays the public
/// API: a chain is type-checked when it is built, and this is only how its packets travel.
protocol ImmediatePacketSource: AnyObject {
    /// Whether `nextPacketImmediately()` may be called; fixed when the stage is built.
    var isImmediate: Bool { get }

    /// What `next()` would give (its packet and seek mark), pulled on the calling task without
    /// suspending. Checks cancellation as `next()` does; nil at the end.
    ///
    /// `blank`: a packet owner the caller is done with, unreferenced (`unref()`) and held by nobody
    /// else, typically the one it pulled last. The source fills it instead of making an owner, so a
    /// copy chain in steady state allocates nothing per packet (an owner and its `AVPacket` cost
    /// ~500 instructions to make and free, a third of our own work per packet).
    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket?
}

/// A packet on its way between stages, with the seek mark of the first packet after a seek.
/// Two references wide: a wider value (a tuple, or the mark stored inline) was copied and tested
/// through the runtime's value witnesses in the generic stages, ~200 instructions a packet.
struct PulledPacket {
    let packet: Packet
    private let boxedMark: BoxedSeekMark?

    init(packet: Packet, mark: SeekMark?) {
        self.packet = packet
        boxedMark = mark.map(BoxedSeekMark.init)
    }

    var mark: SeekMark? { boxedMark?.mark }
}

/// A seek mark behind a reference: there is one per seek, against one packet for every frame.
private final class BoxedSeekMark {
    let mark: SeekMark
    init(_ mark: SeekMark) { self.mark = mark }
}

extension SampleSource {
    /// This stage as an immediate packet source, when it is one and can be pulled that way.
    var immediatePackets: ImmediatePacketSource? {
        guard let source = self as? ImmediatePacketSource, source.isImmediate else { return nil }
        return source
    }
}
