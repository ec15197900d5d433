internal import CFFmpeg

extension Demuxer {
    /// Where an exact start into `track`'s decoded audio counts from (`decode --start T` gives the
    /// whole decode cut at round(T·rate)): the file's start, except where that is the first packet of
    /// an Opus track in Matroska/WebM. Its first pre-skip samples (OpusHead's, Matroska's CodecDelay)
    /// are never presented: the decoder drops them and stamps its first sample at the packet's time
    /// plus the pre-skip on the container's clock (ffmpeg's WebM muxer puts a 312-sample pre-skip's
    /// packet at −7 ms, mkvmerge at −6.5 ms: both decode from 0). Ogg's start already leaves it out.
    /// Another track starting before that moment keeps the file's start there (the file's start is
    /// in microseconds: mkvmerge's 1/48,000-ish clock puts the track 0.4 µs after it).
    public func presentationStart(ofAudio track: TrackInfo) -> MediaTime? {
        guard let fileStart = info.startTime, info.formatName == "matroska,webm", track.codec == Codec(AV_CODEC_ID_OPUS),
              let trackStart = track.startTime,
              let preSkip = Self.opusPreSkip(parameters[track.index].extradata), preSkip > 0 else { return info.startTime }
        // As FFmpeg moves the first frame's time when it drops the pre-skip (rounded to the packets' clock).
        let decoded = MediaTime(value: trackStart.value + av_rescale_q(preSkip, AVRational(num: 1, den: 48_000), track.timeBase.avValue),
                                timeBase: track.timeBase)
        let others = info.tracks.filter { $0.index != track.index && ($0.kind == .audio || $0.kind == .video) }.compactMap(\.startTime)
        return ([decoded] + others).min().map { Swift.max($0, fileStart) }
    }

    /// The pre-skip an `OpusHead` declares (in 48 kHz samples: RFC 7845 §5.1), nil for other bytes.
    private static func opusPreSkip(_ head: [UInt8]) -> Int64? {
        guard head.count >= 19, head.starts(with: Array("OpusHead".utf8)) else { return nil }
        return Int64(head[10]) | Int64(head[11]) << 8
    }
}

/// The part of a file a job reads, on the file's own timeline (which may not start at 0: an
/// MPEG-TS starts seconds in), as ffmpeg's `-ss`/`-t` count it: `start` and `duration` are counted
/// from `origin`, the instant the job calls the file's start (`Demuxer.presentationStart(ofAudio:)`,
/// `MediaInfo.startTime`). Every job that starts or stops inside a file takes its instants here.
struct TimelinePart {
    /// The part's first instant on the file's timeline: `origin + start`, or `origin`.
    let from: MediaTime
    /// Where the part ends on the file's timeline; nil: at the file's end.
    let end: MediaTime?
    /// The part starts after the file's start, so reading it begins with an exact seek to `from`.
    let seeks: Bool

    /// The part from `start` (nil: the beginning) for `duration` (nil: to the end) after `origin`.
    init(origin: MediaTime, start: MediaTime?, duration: MediaTime?) {
        self.init(from: start.map { origin + $0 } ?? origin, duration: duration, seeks: start.map { $0.value > 0 } ?? false)
    }

    /// The part from `from` (already on the file's timeline) for `duration` (nil: to the end);
    /// `seeks`: `from` is after the file's start.
    init(from: MediaTime, duration: MediaTime?, seeks: Bool) {
        self.from = from
        end = duration.map { from + $0 }
        self.seeks = seeks
    }
}

extension Demuxer {
    /// Moves the read position to the start of `part`: an exact seek when it starts inside the
    /// file (pictures and samples before it are decoded but not delivered), nothing otherwise.
    func seek(toStartOf part: TimelinePart) throws {
        if part.seeks { try seek(to: part.from, mode: .exact) }
    }
}
