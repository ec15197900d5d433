/// How a parallel encode cuts its input (`SegmentPlan`): segments of `segmentFrames` frames of
/// 1024 samples, each encoded by its own encoder from `preRoll` frames before it to `postRoll`
/// after it, keeping exactly the packets the sequential encode makes for its frames.
public struct ParallelEncoding: Sendable, Equatable {
    /// Encoders running at once; 1 is the sequential encode, byte for byte.
    public var jobs: Int
    public var segmentFrames: Int
    /// nil: the measured default for the mode (`defaultPreRoll(quality:)`).
    public var preRoll: Int?
    public var postRoll: Int
    /// Frames each new encoder after the first encodes and discards before its first segment, so
    /// that its rate control is not cold at the seam; nil: the measured default for the mode
    /// (`defaultWarmUp(quality:)`). Later segments continue a warm encoder instead.
    public var warmUp: Int?

    public init(jobs: Int = 1, segmentFrames: Int = ParallelEncoding.defaultSegmentFrames, preRoll: Int? = nil,
                postRoll: Int = ParallelEncoding.defaultPostRoll, warmUp: Int? = nil) {
        self.jobs = jobs
        self.segmentFrames = segmentFrames
        self.preRoll = preRoll
        self.postRoll = postRoll
        self.warmUp = warmUp
    }

    public static let defaultSegmentFrames = 256
    /// One frame of lookahead puts the window decision of a segment's last frame where the
    /// sequential encode has it (without it, a transient after the cut made illegal sequences).
    public static let defaultPostRoll = 1
    public static func defaultPreRoll(quality: Bool) -> Int { quality ? 64 : 16 }
    public static func defaultWarmUp(quality: Bool) -> Int { quality ? 0 : 512 }
}
