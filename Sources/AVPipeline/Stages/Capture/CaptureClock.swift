import Synchronization

/// The one clock a recording's captures share, so that a flash on the screen and a beep into the
/// microphone made together land together in the file.
///
/// The microphone sets it: its sample frames are counted from the device's start, and every
/// delivery tells, on the monotonic clock, by when the newest of them had been captured. The
/// earliest such bound for frame 0 is the audio's origin. Pictures are stamped on the monotonic
/// clock as the screen or camera delivers them, and placed on the audio's timeline against that
/// origin. A capture without a microphone starts its own timeline at its first picture.
public final class CaptureClock: Sendable {
    /// Monotonic nanoseconds of the audio's frame 0; `Int.max` until the microphone has delivered.
    private let audioOrigin = Atomic<Int>(Int.max)

    /// A clock no capture has set yet: give it to a `DeviceCapture` and a `VideoCapture`.
    public init() {}

    /// Device side: `frames` sample frames at `sampleRate` have been delivered by `now`, so frame 0
    /// was captured no later than `now - frames / sampleRate`. Keeps the earliest such bound.
    func audioDelivered(frames: Int64, sampleRate: Int, now: Int) {
        let bound = now - Int(frames * 1_000_000_000 / Int64(sampleRate))
        var current = audioOrigin.load(ordering: .relaxed)
        while bound < current {
            let (exchanged, original) = audioOrigin.compareExchange(expected: current, desired: bound, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    /// The audio's frame 0 on the monotonic clock, in nanoseconds; nil before the microphone's first delivery.
    var audioOriginNanoseconds: Int? {
        let origin = audioOrigin.load(ordering: .relaxed)
        return origin == Int.max ? nil : origin
    }
}
