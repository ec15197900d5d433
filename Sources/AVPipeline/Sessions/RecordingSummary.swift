/// What a finished `RecordingSession` did: what each device captured, kept and lost.
public struct RecordingSummary: Sendable {
    /// The output written (a file, an HLS playlist or a URL).
    public var output: String
    /// The microphone's counts; nil without a microphone (or when stopped before it opened).
    public var sound: DeviceCapture.Statistics?
    /// The sample rate the microphone delivered at; nil without a microphone.
    public var soundSampleRate: Int?
    /// The screen's or camera's counts; nil without pictures (or when stopped before it opened).
    public var pictures: VideoCapture.Statistics?

    /// A summary as the fields say.
    public init(output: String, sound: DeviceCapture.Statistics? = nil, soundSampleRate: Int? = nil, pictures: VideoCapture.Statistics? = nil) {
        self.output = output
        self.sound = sound
        self.soundSampleRate = soundSampleRate
        self.pictures = pictures
    }

    /// The sound recorded, audio lost to overruns (kept as silence) included; nil without a microphone.
    public var soundDuration: MediaTime? {
        guard let sound, let soundSampleRate, soundSampleRate > 0 else { return nil }
        return MediaTime(seconds: Double(sound.deliveredFrames + sound.droppedFrames) / Double(soundSampleRate), timeBase: Rational(1, 1000))
    }
}
