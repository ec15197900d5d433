import ArgumentParser
import AVPipeline

/// `encode`'s `--jobs`, `--quality` and the parallel encode's segmenting: how the AAC encoder is
/// run (`ParallelAACEncoding`). One option a line: they read as a table of the encoder's settings.
struct AACEncodingArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Encoders running at once on segments of the input (default: one per 30 s of input, up to the core count, from 60 s on; 1: the sequential encode, byte for byte ffmpeg's).", valueName: "n")) var jobs: Int?
    @Option(help: ArgumentHelp("Constant quality instead of a bit rate, as ffmpeg's -q:a (0.1–10; about 1 ≈ 128 kb/s stereo); a parallel encode then decodes to the same samples as --jobs 1.", valueName: "q")) var quality: Double?
    @Option(help: ArgumentHelp("Parallel encode: frames of 1024 samples per segment (default: \(ParallelAACEncoding.defaultSegmentFrames)).", valueName: "n")) var segmentFrames: Int?
    @Option(help: ArgumentHelp("Parallel encode: frames each segment's encoder is fed before its segment (default: \(ParallelAACEncoding.defaultPreRoll(quality: false)), \(ParallelAACEncoding.defaultPreRoll(quality: true)) with --quality).", valueName: "n")) var preRoll: Int?
    @Option(help: ArgumentHelp("Parallel encode: frames each segment's encoder is fed after its segment (default: \(ParallelAACEncoding.defaultPostRoll)).", valueName: "n")) var postRoll: Int?
    @Option(help: ArgumentHelp("Parallel encode: frames each new encoder after the first encodes and discards before its first segment, so its rate control has settled (default: \(ParallelAACEncoding.defaultWarmUp(quality: false)), \(ParallelAACEncoding.defaultWarmUp(quality: true)) with --quality).", valueName: "n")) var warmUp: Int?

    /// Called by `encode`'s `validate()` after its own checks of the input; `bitrate` and
    /// `realtime` are the command's options these exclude.
    func check(bitrate: BitRateArgument?, realtime: Bool) throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1 (got \(jobs))") }
        if let jobs, jobs > 1, realtime { throw ValidationError("--jobs applies to file encodes, not --realtime (a paced capture)") }
        if let quality, !(quality > 0 && quality <= 10) { throw ValidationError("--quality must be above 0 and at most 10 (got \(quality))") }
        if quality != nil, bitrate != nil { throw ValidationError("give --bitrate or --quality, not both") }
        if let segmentFrames, segmentFrames < 1 { throw ValidationError("--segment-frames must be at least 1 (got \(segmentFrames))") }
        if let preRoll, preRoll < 1 { throw ValidationError("--pre-roll must be at least 1 (got \(preRoll))") }
        if let warmUp, warmUp < 0 { throw ValidationError("--warm-up must not be negative (got \(warmUp))") }
        if let postRoll, postRoll < 0 { throw ValidationError("--post-roll must not be negative (got \(postRoll))") }
    }

    /// The segmenting asked for; jobs 0 (none given, and not `realtime`) lets the encode choose
    /// by the input's length (`TranscodeSession.Audio.parallel`).
    func parallel(realtime: Bool) -> ParallelAACEncoding {
        ParallelAACEncoding(jobs: jobs ?? (realtime ? 1 : 0), segmentFrames: segmentFrames ?? ParallelAACEncoding.defaultSegmentFrames,
                            preRoll: preRoll, postRoll: postRoll ?? ParallelAACEncoding.defaultPostRoll, warmUp: warmUp)
    }
}
