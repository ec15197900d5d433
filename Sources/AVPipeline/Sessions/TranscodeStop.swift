import Synchronization

/// The switch `TranscodeSession.stop()` throws: every gated stream of the run ends at its next
/// pull, so decoders, encoders and the muxer drain and complete the file as at a normal end.
final class StopSwitch: Sendable {
    private let stopped = Atomic<Bool>(false)

    /// Asks every gated stream to end.
    func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether `stop()` was called.
    var isStopped: Bool { stopped.load(ordering: .acquiring) }
}

/// A stream that ends (returns nil) once its `StopSwitch` is thrown, and is otherwise its
/// upstream unchanged. A copied track's packets still travel without suspending when its
/// upstream's do (`ImmediatePacketSource`), so a gated copy costs no more than an ungated one.
final class StopGate<Upstream: SampleSource>: SampleSource, ImmediatePacketSource {
    typealias Buffer = Upstream.Buffer
    var outputFormat: Upstream.Buffer.Format { upstream.outputFormat }
    private let upstream: Upstream
    private let immediateUpstream: ImmediatePacketSource?
    private let stop: StopSwitch

    init(_ upstream: Upstream, stop: StopSwitch) {
        self.upstream = upstream
        immediateUpstream = upstream.immediatePackets
        self.stop = stop
    }

    func next() async throws -> Upstream.Buffer? {
        if stop.isStopped { return nil }
        return try await upstream.next()
    }

    var isImmediate: Bool { immediateUpstream != nil }

    func nextPacketImmediately(reusing blank: Packet?) throws(AVPipelineError) -> PulledPacket? {
        if stop.isStopped { return nil }
        return try immediateUpstream?.nextPacketImmediately(reusing: blank)
    }
}

extension SampleSource {
    /// This stream, ended early when `stop` is thrown; the stream itself without one.
    func gated(by stop: StopSwitch?) -> ErasedSource<Buffer> {
        guard let stop else { return ErasedSource(self) }
        return ErasedSource(StopGate(self, stop: stop))
    }
}
