/// What a playback did (a `Player`'s or a `VideoRenderer`'s `show()`), for `--stats`; the audio
/// device's own counters are `AudioPlaybackStatistics` (an `AudioRenderer`'s `play()`).
public struct PlaybackStatistics: Sendable {
    /// Pictures handed to the window.
    public var picturesShown = 0
    /// Pictures skipped because they were due more than a frame duration ago when their turn came.
    public var picturesDropped = 0
    /// Pictures shown more than half a frame duration after they were due.
    public var picturesLate = 0
    /// Over the pictures shown: how far the master clock was past each picture's time when it was
    /// handed to the window (positive: the picture came late), in seconds; the maximum is of the
    /// absolute offsets.
    public var meanOffset: Double?
    /// The largest of those offsets, in absolute value.
    public var maximumOffset: Double?
    /// Audio device callbacks that found no audio while more was coming.
    public var audioUnderruns = 0
    /// What the decoders did (damaged packets skipped…), once playback has ended.
    public var audioDecoding: AudioDecoderStatistics?
    /// What the video decoder did, once playback has ended.
    public var videoDecoding: VideoDecoderStatistics?

    /// All counters at zero.
    public init() {}
}
