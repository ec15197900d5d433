internal import CFFmpeg

/// What has been written to one output stream: packets, payload bytes and the span they cover.
/// The one-track writers and the `MuxWriter` write the same way: `place` a packet on its stream,
/// `count` it, write it, and name a failure with `WriteFailure`.
struct StreamTally {
    var packets = 0
    var bytes = 0
    /// The earliest presentation time written.
    var start: MediaTime?
    /// The latest end (presentation time + duration) written.
    var end: MediaTime?

    /// Moves `p`'s times from `timeBase` to `stream`'s and addresses it to `stream`.
    @inline(__always)
    static func place(_ p: UnsafeMutablePointer<AVPacket>, from timeBase: AVRational, on stream: UnsafeMutablePointer<AVStream>) {
        av_packet_rescale_ts(p, timeBase, stream.pointee.time_base)
        p.pointee.stream_index = stream.pointee.index
    }

    /// Counts `p` (of `size` payload bytes, its times in `timeBase`); returns where it ends, when it has a time.
    @inline(__always)
    mutating func count(_ p: UnsafeMutablePointer<AVPacket>, size: Int, timeBase: AVRational) -> MediaTime? {
        packets += 1
        bytes += size
        guard let pts = MediaTime(ffmpeg: p.pointee.pts, timeBase: Rational(timeBase)) else { return nil }
        let packetEnd = MediaTime(value: pts.value + max(p.pointee.duration, 0), timeBase: pts.timeBase)
        if end.map({ packetEnd > $0 }) ?? true { end = packetEnd }
        if start.map({ pts < $0 }) ?? true { start = pts }
        return packetEnd
    }
}

/// How a muxer's failure is told: I/O failures (disk full, file size limit) become
/// `outputWriteFailed` naming the output; a packet the muxer refuses (timestamps going backwards,
/// say) is the input's fault and names it, when the writer knows which input (`track`).
enum WriteFailure {
    static func describe(_ error: AVPipelineError, path: String, track: String? = nil, at position: MediaTime? = nil) -> AVPipelineError {
        guard case .ffmpeg(_, let code, let message) = error else { return error }
        switch avp_errno_of(code) {
        case ENOSPC, EIO, EFBIG, EDQUOT, EROFS, EACCES: return .outputWriteFailed(path: path, reason: message)
        default:
            if let track, code == avp_error_einval() || code == avp_error_invaliddata() {
                return .invalidData(path: track, position: position, reason: "the muxer refused a packet: \(message)")
            }
            return error
        }
    }
}
