/// How a `Player` plays.
public struct PlayerOptions: Sendable {
    /// Play the sound (false: `--no-audio`).
    public var playsAudio: Bool
    /// Show the picture (false: `--no-video`).
    public var playsVideo: Bool
    /// Which audio track (0 = the first of its kind); nil: the file's best.
    public var audioTrack: Int?
    /// Which video track (0 = the first of its kind); nil: the file's best.
    public var videoTrack: Int?
    /// Output device name (see `AudioOutputDevices.names()`); nil is the system default.
    public var audioDevice: String?
    /// 0 … 1.
    public var volume: Float
    /// Start in full screen (f toggles it).
    public var fullscreen: Bool
    /// Where to begin, counted from the file's start.
    public var start: MediaTime?
    /// The window's title; nil: the file's name.
    public var windowTitle: String?
    /// How the file is opened and read (input policy, background reading).
    public var demuxer: Demuxer.Options

    /// Sound and picture, the best tracks, the default device at full volume, from the start, unless told otherwise.
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
