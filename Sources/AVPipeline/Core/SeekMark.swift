/// How a seek lands.
public enum SeekMode: Sendable, Equatable {
    /// On the sync sample (keyframe) at or before the target: fast, and the first picture may come
    /// before the target.
    case keyframe
    /// Exactly on the target: decoders decode from the keyframe before it and drop what comes
    /// before, so the first picture is the first one starting at or after the target (as
    /// `ffmpeg -ss T -i` gives) and the first audio sample is the target's.
    case exact
}

/// Travels on the first packet a track reads after a seek: tells the stages downstream that the
/// stream jumped (decoders flush what they hold) and, in exact mode, where output must start.
public struct SeekMark: Sendable, Equatable {
    /// The time the seek asked for.
    public let target: MediaTime
    /// How the seek lands: on the keyframe before `target`, or exactly on it.
    public let mode: SeekMode
    /// Which of the demuxer's seeks this is (1 for the first): lets a consumer of decoded output
    /// tell buffers of an earlier position from those of the latest one.
    let generation: Int
}
