extension Demuxer {
    /// Where a demuxer is in its life, as the original series reports it.
    public enum Status: Sendable, Equatable {
        /// Opened; no packet pulled yet.
        case unknown
        /// At least one track is being read.
        case running
        /// Every track that was asked for reached its end.
        case completed
        /// A track failed; the error says where.
        case failed(AVPipelineError)
        /// `cancel()` was called, or a pulling task was cancelled.
        case cancelled

        var isFinal: Bool {
            switch self {
            case .completed, .failed, .cancelled: true
            case .unknown, .running: false
            }
        }
    }
}

/// The demuxer's status, the count of tracks still open and the tracks found cut short, updated
/// by its tracks from whatever task pulls them.
final class DemuxStatusCell: Sendable {
    private struct State {
        var status: Demuxer.Status = .unknown
        var openTracks = 0
        var truncations: [Truncation] = []
    }
    private let state = LockedState(State())

    var status: Demuxer.Status { state.withLock { $0.status } }
    var truncations: [Truncation] { state.withLock { $0.truncations } }

    /// A track ended at the last intact packet of a file that was cut.
    func recordTruncation(_ truncation: Truncation) {
        state.withLock { $0.truncations.append(truncation) }
    }

    /// A track was created: the demuxer completes only once every created track has ended.
    func trackCreated() {
        state.withLock { $0.openTracks += 1 }
    }

    /// A track was pulled for the first time.
    func trackStarted() {
        state.withLock { s in
            if s.status == .unknown || s.status == .completed { s.status = .running }
        }
    }

    func trackEnded() {
        state.withLock { s in
            s.openTracks -= 1
            if s.openTracks == 0 && s.status == .running { s.status = .completed }
        }
    }

    /// A track was dropped before its end. One never pulled does not hold completion back; one
    /// left half-read is not a completion, so the status stays.
    func trackAbandoned(started: Bool) {
        state.withLock { s in
            s.openTracks -= 1
            if !started && s.openTracks == 0 && s.status == .running { s.status = .completed }
        }
    }

    /// Records the first failure; a cancellation wins over the errors it causes.
    func trackFailed(_ error: AVPipelineError) {
        state.withLock { s in
            s.openTracks -= 1
            guard !s.status.isFinal || s.status == .completed else { return }
            s.status = error == .cancelled ? .cancelled : .failed(error)
        }
    }

    func cancel() {
        state.withLock { s in
            if !s.status.isFinal { s.status = .cancelled }
        }
    }
}
