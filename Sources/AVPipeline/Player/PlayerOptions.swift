/// How a `Player` plays.
public struct PlayerOptions: Sendable {
    /// Play the sound (false: `--no-audio`).
    public var playsAudio: Bool
    /// Show the picture (false: `--no-video`).
    public var playsVideo: Bool
    /// Which audio / video track (0 = the first of its kind); nil: the file's best.
    public var audioTrack: Int?
    public var videoTrack: Int?
    /// Output device name (see `AudioOutputDevices.names()`); nil is the system default.
    public var audioDevice: String?
    /// 0 … 1.
    public var volume: Float
    public var fullscreen: Bool
    /// Where to begin, counted from the file's start.
    public var start: MediaTime?
    /// The window's title; nil: the file's name.
    public var windowTitle: String?
    public var demuxer: Demuxer.Options

    public init(playsAudio: Bool = true, playsVideo: Bool = true, audioTrack: Int? = nil, videoTrack: Int? = nil,
                audioDevice: String? = nil, volume: Float = 1, fullscreen: Bool = false, start: MediaTime? = nil,
                windowTitle: String? = nil, demuxer: Demuxer.Options = .init()) {
        self.playsAudio = playsAudio
        self.playsVideo = playsVideo
        self.audioTrack = audioTrack
        self.videoTrack = videoTrack
        self.audioDevice = audioDevice
        self.volume = volume
        self.fullscreen = fullscreen
        self.start = start
        self.windowTitle = windowTitle
        self.demuxer = demuxer
    }
}

/// What a playback did, for `--stats`.
public struct PlayerStatistics: Sendable {
    public var framesShown = 0
    /// Pictures skipped because they were due more than a frame duration ago when their turn came.
    public var framesDropped = 0
    /// Pictures shown more than half a frame duration after they were due.
    public var framesLate = 0
    /// Over the pictures shown: how far the master clock was past each picture's time when it was
    /// handed to the window (positive: the picture came late), in seconds; the maximum is of the
    /// absolute offsets.
    public var meanOffset: Double?
    public var maximumOffset: Double?
    /// Audio device callbacks that found no audio while more was coming.
    public var audioUnderruns = 0
    /// What the decoders did (damaged packets skipped…), once playback has ended.
    public var audioDecoding: AudioDecoderStatistics?
    public var videoDecoding: VideoDecoderStatistics?

    public init() {}
}
