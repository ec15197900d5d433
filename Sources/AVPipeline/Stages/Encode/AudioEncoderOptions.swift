/// What an audio encoder is set to (`AudioEncoder`, `AACEncoder`, `encodeAudio(_:)`,
/// `encodeAAC(_:)`): which FFmpeg encoder, a bit rate or a constant quality, the output's sample
/// rate, and for AAC whether segments of the input are encoded at once (`ParallelAACEncoding`).
/// The audio counterpart of `VideoEncoderOptions`.
public struct AudioEncoderOptions: Sendable, Equatable {
    /// The FFmpeg encoder by name: `aac` (FFmpeg's native AAC-LC, the default, with AAC's limits
    /// applied as `AACEncoder` does), `libopus`, `flac`, `libmp3lame`, `pcm_s16be`…
    public var encoder: String = "aac"
    /// Target bit rate in bits per second (all channels together). nil: FFmpeg's encoder's own
    /// default; for AAC, as ffmpeg's, it grows with the channels: 69 kb/s per single channel, 128 per
    /// pair, 16 for the LFE (mono 69, stereo 128, 5.1 341 kb/s). Either way AAC's is lowered to
    /// the most AAC-LC can carry for the stream (8 kHz mono carries 48 kb/s), as ffmpeg does;
    /// `AACEncoder.bitRate` says what the encoder was set to.
    public var bitRate: Int? = nil
    /// Output sample rate; nil keeps the input's rate when the encoder supports it, else the nearest rate it does.
    public var sampleRate: Int? = nil

    /// Constant quality instead of a bit rate (ffmpeg's `-q:a`; for AAC 0.1–10, about 1 is near 128 kb/s
    /// stereo): the encoder's lambda is fixed, so a parallel AAC encode decodes to the same samples
    /// as the sequential one. Not together with `bitRate`.
    public var quality: Double? = nil
    /// AAC only: segments encoded at once on worker threads (1: one encoder, as ffmpeg does). See `ParallelAACEncoding`.
    public var parallel: ParallelAACEncoding = .init()
    /// The codec's set-up goes in the container's header rather than in the stream (what MP4 and Ogg
    /// want; `AudioFileWriter` says so for its muxer). AAC always keeps it there (ADTS writers add
    /// their own headers), so this matters for the other encoders.
    public var globalHeader: Bool = false

    /// Settings as the properties say; the defaults are ffmpeg's (native AAC at its bit rate, the input's rate, one encoder).
    public init(encoder: String = "aac", bitRate: Int? = nil, sampleRate: Int? = nil, quality: Double? = nil,
                parallel: ParallelAACEncoding = .init(), globalHeader: Bool = false) {
        self.encoder = encoder
        self.bitRate = bitRate
        self.sampleRate = sampleRate
        self.quality = quality
        self.parallel = parallel
        self.globalHeader = globalHeader
    }

    /// Whether these settings ask for FFmpeg's native AAC encoder (`AACEncoder`'s).
    var isNativeAAC: Bool { encoder == "aac" }
}
