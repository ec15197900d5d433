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
