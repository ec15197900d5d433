internal import CFFmpeg

/// The containers the Muxer writes, each one of libavformat's muxers: the ISO-BMFF flavours,
/// Matroska and MPEG-TS.
public enum MuxContainer: String, Sendable, CaseIterable {
    /// `.mp4` (the `mp4` muxer).
    case mp4
    /// `.m4a`: the iTunes audio flavour (the `ipod` muxer).
    case m4a
    /// `.mov`: QuickTime (the `mov` muxer).
    case mov
    /// `.mkv`/`.mka`: Matroska (the `matroska` muxer).
    case mkv
    /// `.webm`: Matroska restricted to the web's codecs (the `webm` muxer).
    case webm
    /// `.ts`: MPEG transport stream (the `mpegts` muxer): H.264/H.265 as Annex B, AAC as ADTS.
    case ts
    /// `.m3u8`: an HLS playlist and its segments (the `hls` muxer; see `HLSOptions`).
    case hls

    var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .m4a: "ipod"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        case .ts: "mpegts"
        case .hls: "hls"
        }
    }

    /// MP4, M4A and MOV: one index (`moov`), edit lists, `ilst` tags.
    var isISOBMFF: Bool { self == .mp4 || self == .m4a || self == .mov }

    /// Matroska and WebM.
    var isMatroska: Bool { self == .mkv || self == .webm }

    /// Written front to back, never going back to fill in an index: can go to a pipe as it is
    /// (an MP4 there must be fragmented).
    public var streams: Bool { isMatroska || self == .ts }

    /// Whether this container can hold a stream of `codec`, as libavformat's muxer says; for HLS,
    /// in `segments` (fMP4 segments are written by the mp4 muxer: AV1, VP9, FLAC…).
    public func canHold(_ codec: Codec, segments: HLSOptions.Segments = .mpegts) -> Bool {
        if self == .hls && segments == .fmp4 {
            // The hls muxer writes subtitles only as WebVTT segments of a playlist of their own.
            return avcodec_descriptor_get(codec.avID)?.pointee.type != AVMEDIA_TYPE_SUBTITLE && Self.mp4.canHold(codec)
        }
        // The mpegts muxer has no codec table: it writes any other codec as private data that
        // no reader will recognise, so only the stream types it maps count.
        if self == .ts || self == .hls { return Self.transportStreamCodecs.contains(codec.avID.rawValue) }
        guard let format = av_guess_format(muxerName, nil, nil) else { return false }
        return avformat_query_codec(format, codec.avID, 0) == 1
    }

    /// Why a copy into this container (HLS: as `hls` says) loses a video track's display matrix
    /// (its rotation and mirroring) as this FFmpeg writes it; nil when the matrix is kept.
    func displayMatrixLoss(hls: HLSOptions) -> String? {
        switch self {
        case .mp4, .m4a, .mov: nil
        case .mkv, .webm: avp_matroska_keeps_display_matrix() != 0 ? nil : "this FFmpeg's Matroska muxer does not write it (FFmpeg 7's does)"
        case .ts: "TS has no place for it"
        case .hls where hls.segments == .mpegts: "HLS's TS segments have no place for it (fMP4 segments, --fmp4, keep it)"
        // Written into a VOD stream's init segment when the hls muxer drops it (see Muxer).
        case .hls: avp_hls_keeps_display_matrix() != 0 || !hls.live ? nil
                   : "this FFmpeg's hls muxer does not pass it on to fMP4 segments, and a live stream's are published as written (FFmpeg 7 keeps it)"
        }
    }

    /// The codecs FFmpeg's mpegts muxer gives a stream type of their own.
    private static let transportStreamCodecs: Set<UInt32> = Set([
        AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG1VIDEO, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4,
        AV_CODEC_ID_VC1, AV_CODEC_ID_DIRAC, AV_CODEC_ID_CAVS, AV_CODEC_ID_AVS2,
        AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3,
        AV_CODEC_ID_DTS, AV_CODEC_ID_TRUEHD, AV_CODEC_ID_OPUS, AV_CODEC_ID_S302M,
        AV_CODEC_ID_DVB_SUBTITLE, AV_CODEC_ID_DVB_TELETEXT,
    ].map(\.rawValue))

    /// The extensions `init(path:)` knows, for messages.
    public static let extensionsText = ".mp4, .m4a, .mov, .mkv, .webm, .ts or .m3u8"

    /// The container a file name's extension asks for (`x.m4a` → `.m4a`), nil when it names none.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "mp4", "m4v": self = .mp4
        case "m4a", "m4b": self = .m4a
        case "mov", "qt": self = .mov
        case "mkv", "mka": self = .mkv
        case "webm": self = .webm
        case "ts", "mts": self = .ts
        case "m3u8": self = .hls
        default: return nil
        }
    }
}

/// What a finished mux produced.
public struct MuxSummary: Sendable {
    public struct Track: Sendable {
        public let kind: String
        public let codec: Codec
        public let packets: Int
        public let bytes: Int
        /// End of the track's last packet (presentation time).
        public let end: MediaTime?
    }

    public let path: String
    public let tracks: [Track]
    /// The longest track's end.
    public let duration: MediaTime?
    /// The most packets the interleaving buffer ever held (never more than one per track).
    public let bufferHighWaterMark: Int
}
