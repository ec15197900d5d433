/// Every kind of output file avpipe writes, each one of libavformat's muxers: the one vocabulary
/// the writers, the `Muxer` and the command line share. An output name says which one through its
/// extension (`init(path:)`), a `--format` through the raw value (`init(rawValue:)`); what a
/// container can hold and how it can be written are its capabilities below, so a new container is
/// one new case here and its muxer.
public enum Container: String, Sendable, CaseIterable {
    // Multi-track containers, written by the `Muxer`.
    /// `.mp4`/`.m4v` (the `mp4` muxer).
    case mp4
    /// `.m4a`/`.m4b`: the iTunes audio flavour (the `ipod` muxer).
    case m4a
    /// `.mov`/`.qt`: QuickTime (the `mov` muxer).
    case mov
    /// `.mkv`/`.mka`: Matroska (the `matroska` muxer).
    case mkv
    /// `.webm`: Matroska restricted to the web's codecs (the `webm` muxer).
    case webm
    /// `.ts`/`.mts`: MPEG transport stream (the `mpegts` muxer): H.264/H.265 as Annex B, AAC as ADTS.
    case ts
    /// `.m3u8`: an HLS playlist and its segments (the `hls` muxer; see `HLSOptions`).
    case hls
    /// `.flv`: Flash Video (the `flv` muxer), H.264 and AAC: what RTMP carries, so an `rtmp://`
    /// output is one. Its times are 32-bit milliseconds.
    case flv

    // Single-stream files, written by the one-track writers.
    /// `.aac`/`.adts`: AAC frames, each behind its ADTS header (`ADTSWriter`).
    case adts
    /// `.h264`/`.264`: a raw H.264 Annex B stream (`RawVideoWriter`).
    case h264
    /// `.h265`/`.hevc`/`.265`: a raw H.265 Annex B stream (`RawVideoWriter`).
    case hevc
    /// `.wav`/`.wave`: PCM in a WAV (RIFF) file (`WAVWriter`).
    case wav
    /// `.pcm`/`.raw`: bare PCM samples, no header: the reader must be told the format.
    case pcm
    /// `.flac`.
    case flac
    /// `.aif`/`.aiff`: PCM in an AIFF file (big-endian samples).
    case aiff
    /// `.mp3`, through LAME when the system's FFmpeg has it.
    case mp3
    /// `.opus`: Opus in Ogg through libopus, when the system's FFmpeg has it.
    case opus
    /// `.y4m`: YUV4MPEG2, uncompressed pictures with a header (`VideoFrameWriter`).
    case y4m
    /// `.yuv`: bare picture planes, no header: the reader must be told the format and size.
    case rawYUV = "yuv"
    /// `.png`: one picture (`PNGWriter`).
    case png

    /// The container a file name's extension asks for (`x.m4a` → `.m4a`), nil when it names none.
    /// The one place output names are read.
    public init?(path: String) {
        // A stream's address says its container (an RTMP stream name has no extension).
        if let container = NetworkScheme(of: path)?.impliedContainer {
            self = container
            return
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        guard let container = Self.byExtension[name[name.index(after: dot)...].lowercased()] else { return nil }
        self = container
    }

    /// The lower-cased extension of `path` ("" when it has none), for messages.
    public static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    private static let byExtension: [String: Container] = [
        "mp4": .mp4, "m4v": .mp4, "m4a": .m4a, "m4b": .m4a, "mov": .mov, "qt": .mov,
        "mkv": .mkv, "mka": .mkv, "webm": .webm, "ts": .ts, "mts": .ts, "m3u8": .hls, "flv": .flv,
        "aac": .adts, "adts": .adts, "h264": .h264, "264": .h264, "h265": .hevc, "hevc": .hevc, "265": .hevc,
        "wav": .wav, "wave": .wav, "pcm": .pcm, "raw": .pcm, "flac": .flac, "aif": .aiff, "aiff": .aiff,
        "mp3": .mp3, "opus": .opus, "y4m": .y4m, "yuv": .rawYUV, "png": .png,
    ]

    /// The libavformat muxer that writes it ("" for `.pcm`: the raw muxer is named after the
    /// sample format, s16le, f32le…).
    public var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .m4a: "ipod"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        case .ts: "mpegts"
        case .hls: "hls"
        case .flv: "flv"
        case .adts: "adts"
        case .h264: "h264"
        case .hevc: "hevc"
        case .wav: "wav"
        case .pcm: ""
        case .flac: "flac"
        case .aiff: "aiff"
        case .mp3: "mp3"
        case .opus: "opus"
        case .y4m: "yuv4mpegpipe"
        case .rawYUV: "rawvideo"
        case .png: "image2"
        }
    }

    // MARK: Capabilities

    /// Written by the `Muxer`: any number of tracks, tags, chapters.
    public var isMultiTrack: Bool {
        switch self {
        case .mp4, .m4a, .mov, .mkv, .webm, .ts, .hls, .flv: true
        default: false
        }
    }

    /// Can hold encoded video.
    public var holdsVideo: Bool {
        switch self {
        case .mp4, .mov, .mkv, .webm, .ts, .hls, .flv, .h264, .hevc: true
        default: false
        }
    }

    /// Can hold audio (encoded, or PCM as it is).
    public var holdsAudio: Bool {
        switch self {
        case .mp4, .m4a, .mov, .mkv, .webm, .ts, .hls, .flv, .adts, .wav, .pcm, .flac, .aiff, .mp3, .opus: true
        default: false
        }
    }

    /// Can hold subtitle tracks (which codecs: `canHold(_:segments:)`).
    public var holdsSubtitles: Bool {
        switch self {
        case .mp4, .mov, .mkv, .webm, .ts: true
        default: false
        }
    }

    /// Holds decoded pictures, written uncompressed or encoded one by one (`VideoFrameWriter`, `PNGWriter`).
    public var holdsPictures: Bool { self == .y4m || self == .rawYUV || self == .png }

    /// Can be written as self-contained fragments that survive the process being killed (the
    /// `Muxer`'s `fragmented`; Matroska and TS are such a series by nature).
    public var canFragment: Bool { isISOBMFF || streams }

    /// Records where the audio starts and ends exactly (priming and padding): the ISO-BMFF edit
    /// list and `iTunSMPB`.
    public var isGapless: Bool { self == .mp4 || self == .m4a }

    /// MP4, M4A and MOV: one index (`moov`), edit lists, `ilst` tags.
    public var isISOBMFF: Bool { self == .mp4 || self == .m4a || self == .mov }

    /// Matroska and WebM.
    public var isMatroska: Bool { self == .mkv || self == .webm }

    /// Written front to back, never going back to fill in an index: can go to a pipe as it is
    /// (an MP4 there must be fragmented).
    public var streams: Bool { isMatroska || self == .ts || self == .flv }

    /// The extensions of the `Muxer`'s containers, for messages.
    public static let extensionsText = ".mp4, .m4a, .mov, .mkv, .webm, .ts, .flv or .m3u8 (or an rtmp://, srt:// or http://…/NAME.m3u8 URL)"
}

/// The containers the `Muxer` writes (`Container.isMultiTrack`): the name the API had before
/// there was one container type.
public typealias MuxContainer = Container
