internal import CFFmpeg

/// What the `Muxer`'s containers take: codecs, and a video track's display matrix.
extension Container {
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
        // The flv muxer also takes Sorenson, VP6, MP3, Speex…, but RTMP ingest servers and players
        // take H.264 and AAC: those are what an FLV here holds.
        if self == .flv { return codec == .h264 || codec == .aac }
        guard let format = av_guess_format(muxerName, nil, nil) else { return false }
        return avformat_query_codec(format, codec.avID, 0) == 1
    }

    /// Whether this container keeps attached files (fonts…): Matroska does, WebM (its subset) does not.
    public var holdsAttachments: Bool { self == .mkv }

    /// Why a copy into this container (HLS: as `hls` says) loses a video track's display matrix
    /// (its rotation and mirroring) as this FFmpeg writes it; nil when the matrix is kept.
    func displayMatrixLoss(hls: HLSOptions) -> String? {
        switch self {
        case .mp4, .m4a, .mov: nil
        // Not the Muxer's: it writes no video track into these.
        case .adts, .h264, .hevc, .wav, .pcm, .flac, .aiff, .mp3, .opus, .y4m, .rawYUV, .png: nil
        case .mkv, .webm: avp_matroska_keeps_display_matrix() != 0 ? nil : "this FFmpeg's Matroska muxer does not write it (FFmpeg 7's does)"
        case .ts: "TS has no place for it"
        case .flv: "FLV has no place for it"
        case .hls where hls.segments == .mpegts: "HLS's TS segments have no place for it (fMP4 segments, --fmp4, keep it)"
        // Written into a VOD stream's init segment when the hls muxer drops it (see Muxer).
        case .hls: avp_hls_keeps_display_matrix() != 0 || !hls.inPlace ? nil
                   : "this FFmpeg's hls muxer does not pass it on to fMP4 segments, and a live stream's are published as written (FFmpeg 7 keeps it)"
        }
    }

    /// Whether an encode into this container (HLS: as `hls` says) keeps a rotated or mirrored
    /// track's pictures as stored, with its display matrix: only where the container has a field
    /// for it that players honour and this FFmpeg writes it (MP4, MOV, fMP4 HLS), as a phone's own
    /// recording does. Everywhere else (Matroska, WebM, MPEG-TS, TS HLS, FLV, raw `.h264`/`.h265`)
    /// the pictures are turned upright before encoding and the output carries no matrix, as
    /// ffmpeg's autorotate does; else the video plays on its side.
    public func keepsDisplayMatrixOfEncode(hls: HLSOptions) -> Bool {
        switch self {
        case .mp4, .m4a, .mov: true
        case .hls: hls.segments == .fmp4 && displayMatrixLoss(hls: hls) == nil
        default: false
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
}
