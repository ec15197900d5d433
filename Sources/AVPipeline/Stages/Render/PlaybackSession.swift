/// What the lanes of one playback share: the master clock, pause/stop, the seek generation and
/// target, which lanes have reached their end, the first failure and the counters. Every field
/// is behind one lock; the lanes read a snapshot each turn of their loops. It lives with the render
/// stages, below `Player`: `VideoRenderer` runs a video lane on one of its own.
final class PlaybackSession: Sendable {
    struct State: Sendable {
        var paused = false
        var stopped = false
        /// Counts the player's seeks (equal to the demuxer's seek generations).
        var generation = 0
        /// The generation at which each lane played out its last buffer; nil while playing.
        var audioEnded: Int?
        var videoEnded: Int?
        var failure: AVPipelineError?
        var statistics = PlaybackStatistics()
        var offsetSum = 0.0
        var timedPictures = 0
    }

    let clock: PlaybackClock
    let hasAudio: Bool
    let hasVideo: Bool
    private let state = LockedState(State())

    init(clock: PlaybackClock, hasAudio: Bool, hasVideo: Bool) {
        self.clock = clock
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
    }

    var snapshot: State { state.withLock { $0 } }

    /// Stopped, failed, or every lane at its end for the latest seek.
    var isFinished: Bool {
        state.withLock { s in
            s.stopped || ((!hasAudio || s.audioEnded == s.generation) && (!hasVideo || s.videoEnded == s.generation))
        }
    }

    func setPaused(_ paused: Bool) { state.withLock { $0.paused = paused } }
    func stop() { state.withLock { $0.stopped = true } }

    /// A lane failed: playback stops and `run()` throws this (the first failure wins).
    func fail(_ error: any Error) {
        let failure = error as? AVPipelineError ?? .cancelled
        state.withLock { s in
            if s.failure == nil { s.failure = failure }
            s.stopped = true
        }
    }

    /// Starts a new seek generation; returns it.
    func beginSeek() -> Int {
        state.withLock { s in
            s.generation += 1
            return s.generation
        }
    }

    func laneEnded(audio: Bool, generation: Int) {
        state.withLock { s in
            if audio { s.audioEnded = generation } else { s.videoEnded = generation }
        }
    }

    /// A picture went to the window; `offset` is how late it was on the clock, nil for one shown
    /// at once (the first, and the first after a seek), which sets the clock rather than follows it.
    func pictureShown(offset: Double?, late: Bool = false) {
        state.withLock { s in
            s.statistics.picturesShown += 1
            guard let offset else { return }
            if late { s.statistics.picturesLate += 1 }
            s.timedPictures += 1
            s.offsetSum += offset
            s.statistics.meanOffset = s.offsetSum / Double(s.timedPictures)
            s.statistics.maximumOffset = max(s.statistics.maximumOffset ?? 0, abs(offset))
        }
    }

    func pictureDropped() { state.withLock { $0.statistics.picturesDropped += 1 } }

    /// Runs a lane; its failure stops the playback and is kept for `run()` to throw. (Lanes are
    /// cancelled only once playback has ended, or by the caller's cancellation, which `run()`
    /// reports itself.)
    static func guarded(_ session: PlaybackSession, _ body: () async throws -> Void) async {
        do { try await body() } catch { if !Task.isCancelled { session.fail(error) } }
    }

    /// Waits until the session is finished, calling `progress` every 50 ms; throws a lane's failure.
    func waitUntilFinished(progress: () -> Void = {}) async throws {
        while !isFinished {
            progress()
            do { try await Task.sleep(for: .milliseconds(50)) } catch { throw AVPipelineError.cancelled }
        }
        if let failure = snapshot.failure { throw failure }
    }

    func recordAudio(_ decoding: AudioDecoderStatistics) { state.withLock { $0.statistics.audioDecoding = decoding } }
    func recordVideo(_ decoding: VideoDecoderStatistics) { state.withLock { $0.statistics.videoDecoding = decoding } }
}
