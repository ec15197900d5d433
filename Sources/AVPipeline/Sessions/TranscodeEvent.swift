/// What a running `TranscodeSession` reports: where it is, and the heads-ups and warnings a
/// command line prints (the same text `avpipe encode` prints after `notice:`/`warning:`).
public enum TranscodeEvent: Sendable {
    /// Where the output has got to: at the first packet written, then at most ten times a second,
    /// and once at the end.
    case progress(TranscodeProgress)
    /// A heads-up that does not change the outcome (a track left out, subtitles converted,
    /// a live input that ended).
    case notice(String)
    /// Something went wrong but did not stop the run (an incomplete input, a bit rate lowered).
    case warning(String)
}

/// A transcode's position, how far along it is and how fast it goes.
public struct TranscodeProgress: Sendable, Equatable {
    /// The output's position (media time written so far, from the output's start).
    public var time: MediaTime
    /// How long the output will be, when the input says how long it is.
    public var duration: MediaTime?
    /// `time` as a part of `duration` (0…1); exactly 1 in the last event of a completed run.
    /// nil when the length is not known (a live input, a pipe).
    public var fraction: Double?
    /// Media time processed per second of wall-clock time (2.0: twice real time); nil until
    /// enough time has passed to measure it.
    public var speed: Double?
    /// Pictures encoded per second of wall-clock time, when video is being made.
    public var picturesPerSecond: Double?

    /// A position with whatever else is known.
    public init(time: MediaTime, duration: MediaTime? = nil, fraction: Double? = nil, speed: Double? = nil,
                picturesPerSecond: Double? = nil) {
        self.time = time
        self.duration = duration
        self.fraction = fraction
        self.speed = speed
        self.picturesPerSecond = picturesPerSecond
    }
}
