/// Turns a pipeline's per-packet positions into `TranscodeProgress` events: the first at once
/// (a caller may act on the first packet written), then at most ten a second, and a last one at
/// the end with the fraction at 1. One driver: called from the task that runs the pipeline.
final class TranscodeProgressMeter {
    private let total: MediaTime?
    private let pictureRate: Double?
    private let send: @Sendable (TranscodeEvent) -> Void
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var last: ContinuousClock.Instant?

    /// `total`: how long the output will be; `pictureRate`: pictures a second of media holds, when
    /// video is made.
    init(total: MediaTime?, pictureRate: Double?, send: @escaping @Sendable (TranscodeEvent) -> Void) {
        self.total = total
        self.pictureRate = pictureRate
        self.send = send
        start = clock.now
    }

    /// For a pipeline's `progress:` parameter.
    func update(_ position: MediaTime) {
        let now = clock.now
        if let last, now - last < .milliseconds(100) { return }
        last = now
        send(.progress(progress(at: position, now: now, finished: false)))
    }

    /// The last event: at `position` (the output's length); the fraction is 1 when the length is
    /// known and the run `complete` (not stopped early).
    func finish(at position: MediaTime?, complete: Bool) {
        guard let position else { return }
        send(.progress(progress(at: position, now: clock.now, finished: complete)))
    }

    private func progress(at position: MediaTime, now: ContinuousClock.Instant, finished: Bool) -> TranscodeProgress {
        var progress = TranscodeProgress(time: position, duration: total)
        if let total, total.seconds > 0 {
            progress.fraction = finished ? 1 : min(1, max(0, position.seconds / total.seconds))
        }
        let (whole, atto) = (now - start).components
        let elapsed = Double(whole) + Double(atto) / 1e18
        if elapsed > 0.05 {
            progress.speed = position.seconds / elapsed
            progress.picturesPerSecond = pictureRate.map { position.seconds * $0 / elapsed }
        }
        return progress
    }
}
