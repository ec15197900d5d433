extension RecordingSession {
    /// What a recording captures and how it is written. The defaults record the system's
    /// microphone alone, in 1-second fragments, until stopped.
    public struct Options: Sendable {
        /// The microphone; nil records pictures alone. Its `clock` and `duration` are set by the
        /// session (one clock for both devices; `duration` below).
        public var microphone: DeviceCapture.Options?
        /// The screen or camera; nil records sound alone. Its `clock` and `duration` are set by the
        /// session, as the microphone's.
        public var pictures: VideoCapture.Options?
        /// How pictures are encoded; nil: H.264. Unless given here, the session applies the live
        /// defaults (x264's `veryfast` preset and `zerolatency` tune), clears `frameRate` (pictures
        /// keep the times they were captured at; `pictures.frameRate` is the rate), and in a
        /// fragmented MP4/MOV puts a keyframe at least every `fragmentDuration`.
        public var videoEncoding: VideoEncoderOptions?
        /// The AAC bit rate in bits per second; nil: FFmpeg's default for the channel count.
        public var audioBitRate: Int?
        /// Longest MP4/MOV/M4A fragment: what a killed process can lose.
        public var fragmentDuration: MediaTime
        /// Write an MP4/MOV/M4A whole with its index first (it appears only when complete) instead
        /// of in fragments.
        public var faststart: Bool
        /// How an HLS output (`.m3u8`) is cut and published.
        public var hls: HLSOptions
        /// How a network output (`rtmp://`, `srt://`, an HLS upload) is connected, reconnected and copied.
        public var network: NetworkOptions
        /// Replace an existing file.
        public var overwrite: Bool
        /// Stop by itself after this much capture time, as `stop()` does; nil: until stopped.
        public var duration: MediaTime?
        /// The container, when the output's name does not say it; nil: from the name.
        public var container: Container?

        /// A recording of the system's microphone unless told otherwise; the rest as the fields say.
        public init(microphone: DeviceCapture.Options? = DeviceCapture.Options(), pictures: VideoCapture.Options? = nil,
                    videoEncoding: VideoEncoderOptions? = nil, audioBitRate: Int? = nil, fragmentDuration: MediaTime = MediaTime(seconds: 1),
                    faststart: Bool = false, hls: HLSOptions = .init(), network: NetworkOptions = .init(), overwrite: Bool = false,
                    duration: MediaTime? = nil, container: Container? = nil) {
            self.microphone = microphone
            self.pictures = pictures
            self.videoEncoding = videoEncoding
            self.audioBitRate = audioBitRate
            self.fragmentDuration = fragmentDuration
            self.faststart = faststart
            self.hls = hls
            self.network = network
            self.overwrite = overwrite
            self.duration = duration
            self.container = container
        }
    }
}

extension RecordingSession.Options {
    /// `videoEncoding` with the live defaults filled in where it leaves them open: x264 is asked
    /// for low latency and enough speed to keep up with a device, and the encoder takes the
    /// pictures' capture times rather than a fixed rate.
    var liveVideoEncoding: VideoEncoderOptions {
        var encoding = videoEncoding ?? VideoEncoderOptions(encoder: VideoEncoderOptions.encoderName(for: .h264) ?? "libx264")
        encoding.frameRate = nil
        if encoding.encoder == "libx264" {
            encoding.preset = encoding.preset ?? "veryfast"
            encoding.tune = encoding.tune ?? "zerolatency"
        }
        return encoding
    }
}
