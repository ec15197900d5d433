import Synchronization

/// Reads a recording's devices into `RecordingStatus` values: the sound's capture time, its peak
/// since the previous reading and its overruns; the pictures' rate since the previous reading and
/// those dropped.
final class RecordingStatusSampler: Sendable {
    private let sound: DeviceCapture.Control?
    private let sampleRate: Int
    private let pictures: VideoCapture.Control?
    private let started = ContinuousClock.now
    /// Pictures delivered at the previous reading, and when.
    private let lastCount = Mutex<(Int, ContinuousClock.Instant)>((0, ContinuousClock.now))

    init(sound: DeviceCapture.Control?, sampleRate: Int, pictures: VideoCapture.Control?) {
        self.sound = sound
        self.sampleRate = sampleRate
        self.pictures = pictures
    }

    /// Sends a status four times a second until cancelled.
    func keepSending(to events: @escaping @Sendable (RecordingEvent) -> Void) async {
        while !Task.isCancelled {
            events(.status(read()))
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The status now (a reading takes the peak, which then starts again from 0).
    func read() -> RecordingStatus {
        var status: RecordingStatus
        if let sound {
            let statistics = sound.statistics
            let elapsed = Double(statistics.deliveredFrames + statistics.droppedFrames) / Double(sampleRate)
            status = RecordingStatus(time: MediaTime(seconds: elapsed, timeBase: Rational(1, 1000)), peak: sound.takePeak(),
                                     overruns: statistics.overrunCount)
        } else {
            status = RecordingStatus(time: MediaTime(seconds: Self.seconds(ContinuousClock.now - started), timeBase: Rational(1, 1000)))
        }
        if let pictures {
            let statistics = pictures.statistics
            let now = ContinuousClock.now
            let rate = lastCount.withLock { last in
                defer { last = (statistics.delivered, now) }
                let seconds = Self.seconds(now - last.1)
                return seconds > 0 ? Double(statistics.delivered - last.0) / seconds : 0
            }
            status.picturesPerSecond = rate
            status.droppedPictures = statistics.dropped
        }
        return status
    }

    private static func seconds(_ span: Duration) -> Double {
        Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
    }
}
