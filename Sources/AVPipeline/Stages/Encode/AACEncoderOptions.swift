/// What `AACEncoder` is set to: a bit rate or a constant quality, the output's sample rate, and
/// whether segments of the input are encoded at once (`ParallelAACEncoding`).
public struct AACEncoderOptions: Sendable {
    /// Target bit rate in bits per second (all channels together). nil: FFmpeg's encoder's own
    /// default, as ffmpeg's, which grows with the channels: 69 kb/s per single channel, 128 per
    /// pair, 16 for the LFE (mono 69, stereo 128, 5.1 341 kb/s). Either way it is lowered to
    /// the most AAC-LC can carry for the stream (8 kHz mono carries 48 kb/s), as ffmpeg does;
    /// `AACEncoder.bitrate` says what the encoder was set to.
    public var bitrate: Int? = nil
    /// Output sample rate; nil keeps the input's rate when AAC supports it, else the nearest rate it does.
    public var sampleRate: Int? = nil

    /// Constant quality instead of a bit rate (ffmpeg's `-q:a`, 0.1–10; about 1 is near 128 kb/s
    /// stereo): the encoder's lambda is fixed, so a parallel encode decodes to the same samples
    /// as the sequential one. Not together with `bitrate`.
    public var quality: Double? = nil
    /// Segments encoded at once on worker threads (1: one encoder, as ffmpeg does). See `ParallelAACEncoding`.
    public var parallel: ParallelAACEncoding = .init()

    /// Settings as the properties say; the defaults are ffmpeg's (its bit rate, the input's rate, one encoder).
    public init(bitrate: Int? = nil, sampleRate: Int? = nil, quality: Double? = nil, parallel: ParallelAACEncoding = .init()) {
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.quality = quality
        self.parallel = parallel
    }
}
