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
/// upstream unchanged.
final class StopGate<Upstream: SampleSource>: SampleSource {
    typealias Buffer = Upstream.Buffer
    var outputFormat: Upstream.Buffer.Format { upstream.outputFormat }
    private let upstream: Upstream
    private let stop: StopSwitch

    init(_ upstream: Upstream, stop: StopSwitch) {
        self.upstream = upstream
        self.stop = stop
    }

    func next() async throws -> Upstream.Buffer? {
        if stop.isStopped { return nil }
        return try await upstream.next()
    }
}

extension SampleSource {
    /// This stream, ended early when `stop` is thrown; the stream itself without one.
    func gated(by stop: StopSwitch?) -> ErasedSource<Buffer> {
        guard let stop else { return ErasedSource(self) }
        return ErasedSource(StopGate(self, stop: stop))
    }
}
