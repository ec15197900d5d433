extension TranscodeSession {
    /// What a transcode makes; every field has the default `avpipe encode` has without options.
    public struct Options: Sendable {
        /// The output's container; nil: from the output's extension (`TranscodeSession.container(of:)`).
        public var container: Container?
        /// What is done with the video: encoded (by default with the container's usual codec),
        /// copied or left out.
        public var video: Video = .automatic
        /// How the sound is encoded, and which track.
        public var audio = Audio()
        /// Whether subtitle tracks (and Matroska attachments) are kept.
        public var subtitles = true
        /// Where the part to encode begins on the input, from its start; nil: the start. At or past
        /// the input's end, `run` throws `.invalidOption` and writes nothing.
        public var start: MediaTime?
        /// How long the part lasts; nil: to the end.
        public var duration: MediaTime?
        /// Whether an existing output is replaced (else `run` throws `.outputExists`).
        public var overwrite = false
        /// How an HLS output is cut and published.
        public var hls = HLSOptions()
        /// Whether the input's tags, chapters, cover art and track tags are carried.
        public var keepsMetadata = true
        /// Tags to set (key → value; an empty value removes the tag), over the input's.
        public var tags: [String: String] = [:]
        /// What is done with a rotated or mirrored video's pictures.
        public var orientation: TranscodePlan.Orientation = .automatic
        /// Whether the output is written no faster than real time; nil: only for a live network
        /// output (`rtmp://`, `rtmps://`, `srt://`), which a server expects at its own pace.
        public var realtime: Bool?
        /// How a network output is connected, reconnected and copied; its events with no handler
        /// of their own become `.notice` events.
        public var network = NetworkOptions()
        /// How the input is opened (its policy, strictness).
        public var demuxer = Demuxer.Options()
        /// Read a PCM WAV input as a capture device would (chunked, optionally paced); nil: read
        /// as a file. Only a PCM WAV input takes it (else `run` throws `.invalidOption`).
        public var capture: FileCaptureOptions?
        /// Whether `.progress` events are sent (each costs a call per packet).
        public var reportsProgress = true

        /// The defaults: every track the container holds, video encoded with its usual codec at
        /// the encoder's defaults, audio to AAC-LC (Opus in WebM), everything carried.
        public init() {}
    }

    /// What a transcode does with the video.
    public enum Video: Sendable, Equatable {
        /// Encoded with `settings` by the encoder `codec` names: `h264`, `hevc` (`h265`), `vp9`,
        /// `av1`, or an FFmpeg encoder by name (`libx264`, `h264_vaapi`); nil: the container's usual
        /// codec (H.264; VP9 in WebM; H.265 in a raw `.h265`). The settings' own `encoder` is not used.
        case encode(VideoEncoderOptions, codec: String?)
        /// Copied as it is.
        case copy
        /// Left out (an audio-only output).
        case none

        /// The container's usual codec at its encoder's defaults (x264: crf 23, preset medium).
        public static let automatic = Video.encode(VideoEncoderOptions(), codec: nil)
    }

    /// How a transcode encodes the sound: AAC-LC (Opus in WebM).
    public struct Audio: Sendable {
        /// Whether the audio is kept at all.
        public var isEnabled = true
        /// The bit rate in bits per second; nil: the encoder's default for the channels.
        public var bitRate: Int?
        /// The sample rate in Hz; nil: the input's, or the nearest AAC supports.
        public var sampleRate: Int?
        /// The channel count; nil: the input's (2 downmixes 5.1 to stereo).
        public var channels: Int?
        /// The one audio track to encode (0: the first); nil: every one (in an audio-only output,
        /// the best one).
        public var track: Int?
        /// AAC constant quality (0.1–10) instead of a bit rate.
        public var quality: Double?
        /// How an audio-only AAC encode is split between cores; `jobs` 0: chosen by the input's length.
        public var parallel = ParallelAACEncoding(jobs: 0)

        /// AAC-LC at the encoder's defaults, every track.
        public init() {}
    }

    /// How a PCM WAV input is read as a capture device would read it.
    public struct FileCaptureOptions: Sendable {
        /// Sample frames per chunk.
        public var chunkFrames = 1024
        /// Whether it is read no faster than real time.
        public var realtime = false

        /// Chunks of 1024 frames, as fast as they come.
        public init(chunkFrames: Int = 1024, realtime: Bool = false) {
            self.chunkFrames = chunkFrames
            self.realtime = realtime
        }
    }
}
