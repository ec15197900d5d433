/// What a running `RecordingSession` tells its caller, from whatever task it runs on (the status
/// comes from a task of its own, beside the notices and warnings).
public enum RecordingEvent: Sendable {
    /// Where the recording stands: sent about four times a second while recording and once at its end.
    case status(RecordingStatus)
    /// A heads-up that does not change the outcome (an encoder's adjustment, a picture layout few
    /// players take).
    case notice(String)
    /// Something went wrong without stopping the recording (pictures dropped, audio lost to an
    /// overrun, a bit rate lowered).
    case warning(String)
}

/// A recording's state at one moment: what a status line shows.
public struct RecordingStatus: Sendable, Equatable {
    /// Capture time recorded so far: the microphone's (audio lost to overruns included), or the
    /// time since the devices started when there is no microphone. In milliseconds.
    public var time: MediaTime
    /// The loudest sample since the previous status, 0 (silence) to 1 (full scale); nil without a microphone.
    public var peak: Float?
    /// Microphone overruns so far (audio lost because writing fell behind); nil without a microphone.
    public var overruns: Int?
    /// Pictures delivered per second since the previous status; nil without pictures.
    public var picturesPerSecond: Double?
    /// Pictures dropped so far because encoding fell behind the device; nil without pictures.
    public var droppedPictures: Int?

    /// A status as the fields say.
    public init(time: MediaTime, peak: Float? = nil, overruns: Int? = nil, picturesPerSecond: Double? = nil, droppedPictures: Int? = nil) {
        self.time = time
        self.peak = peak
        self.overruns = overruns
        self.picturesPerSecond = picturesPerSecond
        self.droppedPictures = droppedPictures
    }
}
