/// How a parallel AAC encode cuts its input (`AACSegmentPlan`): segments of `segmentFrames` AAC
/// frames of 1024 samples, each encoded by its own encoder from `preRoll` frames before it to
/// `postRoll` after it, keeping exactly the packets the sequential encode makes for its frames.
public struct ParallelAACEncoding: Sendable, Equatable {
    /// Encoders running at once; 1 is the sequential encode, byte for byte.
    public var jobs: Int
    /// AAC frames (1024 samples) each segment owns.
    public var segmentFrames: Int
    /// nil: the measured default for the mode (`defaultPreRoll(quality:)`).
    public var preRoll: Int?
    /// Frames each segment's encoder is fed after its segment, for the window decision's lookahead.
    public var postRoll: Int
    /// Frames each new encoder after the first encodes and discards before its first segment, so
    /// that its rate control is not cold at the seam; nil: the measured default for the mode
    /// (`defaultWarmUp(quality:)`). Later segments continue a warm encoder instead.
    public var warmUp: Int?

    /// The settings as the properties say; the defaults are one job (the sequential encode) and the measured values.
    public init(jobs: Int = 1, segmentFrames: Int = ParallelAACEncoding.defaultSegmentFrames, preRoll: Int? = nil,
                postRoll: Int = ParallelAACEncoding.defaultPostRoll, warmUp: Int? = nil) {
        self.jobs = jobs
        self.segmentFrames = segmentFrames
        self.preRoll = preRoll
        self.postRoll = postRoll
        self.warmUp = warmUp
    }

    /// About 6 s at 44.1 kHz: with `jobs` segments of PCM in flight (8 KiB a frame for stereo
    /// float), a 2-job encode peaks at 1.14× the sequential run's RSS.
    public static let defaultSegmentFrames = 256
    /// One frame of lookahead puts the window decision of a segment's last frame where the
    /// sequential encode has it (without it, a transient after the cut made illegal sequences).
    public static let defaultPostRoll = 1
    /// Measured on 120 s of music-like audio, speech and a pure tone, 2 and 8 segments: 1–2 frames
    /// make illegal window sequences, 4 are legal and equal to the sequential encode's; in bit-rate
    /// mode 8 keep every seam's SNR above the 5th percentile of the encoder's other windows. In
    /// constant-quality mode, decoding to the sequential samples took 4 frames (tone), 32
    /// (speech) and 64 (music): the psychoacoustic model's state converges that slowly.
    public static func defaultPreRoll(quality: Bool) -> Int { quality ? 64 : 8 }
    /// A cold start (lambda 120, an empty bit reservoir) left a pure tone's first seam 18 dB below
    /// the sequential encode's, still so 200 frames on; 256 frames of warm-up bring it back to it.
    /// Constant quality has no rate control to warm.
    public static func defaultWarmUp(quality: Bool) -> Int { quality ? 0 : 256 }
}
