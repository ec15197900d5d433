internal import CFFmpeg

/// What a demuxer found in a file: the container and its tracks, before any packet is read.
public struct MediaInfo: Sendable {
    /// The input's path (or the name given to media in memory).
    public let path: String
    /// libavformat's short name of the container (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `aac`…).
    public let formatName: String
    /// libavformat's descriptive name of the container, when it has one.
    public let formatLongName: String?
    /// Container duration, when known.
    public internal(set) var duration: MediaTime?
    /// Overall bit rate in bits per second, when known.
    public internal(set) var bitRate: Int?
    /// Every track in container order.
    public internal(set) var tracks: [TrackInfo]
    /// Where the file's timeline starts (the earliest presentation time), when known: an MPEG-TS
    /// often starts well after 0. `Demuxer.seek(to:)` takes times on this timeline.
    public let startTime: MediaTime?
    /// The file's tags (title, artist, album, date, comment…), as FFmpeg names them.
    public let metadata: [String: String]
    /// The file's chapters, in order.
    public let chapters: [Chapter]

    /// Audio tracks, in container order.
    public var audioTracks: [TrackInfo] { tracks.filter { $0.kind == .audio } }
    /// Video tracks, cover art excluded.
    public var videoTracks: [TrackInfo] { tracks.filter { $0.kind == .video && !$0.isCoverArt } }
    /// Subtitle tracks, in container order.
    public var subtitleTracks: [TrackInfo] { tracks.filter { $0.kind == .subtitle } }
    /// Whether the file has an audio track.
    public var hasAudio: Bool { !audioTracks.isEmpty }
    /// Whether the file has a video track (cover art does not count).
    public var hasVideo: Bool { !videoTracks.isEmpty }
}

/// One track (stream) of a container.
public struct TrackInfo: Sendable {
    /// What a track carries, as FFmpeg's media types name it.
    public enum Kind: String, Sendable {
        /// Sound.
        case audio
        /// Pictures (cover art included: see `isCoverArt`).
        case video
        /// Subtitles or captions.
        case subtitle
        /// Timed data no decoder plays (timecodes, metadata tracks).
        case data
        /// An attached file (a Matroska font).
        case attachment
        /// A stream FFmpeg could not classify.
        case unknown
    }

    /// Position of the track in the container (FFmpeg's stream index).
    public let index: Int
    /// What the track carries.
    public let kind: Kind
    /// The track's codec.
    public let codec: Codec
    /// The container's codec tag as text when it is a readable fourcc (`avc1`, `hev1`, `mp4a`).
    public let codecTag: String?
    /// The codec profile, by FFmpeg's name (`LC`, `High`, `Main 10`…), when known.
    public let profile: String?
    /// The time base of the track's packet times.
    public let timeBase: Rational
    /// The track's duration, when the container or probing says.
    public internal(set) var duration: MediaTime?
    /// Where the track's presentation starts, when known (0 for an MP4 whose edit list skips the priming).
    public let startTime: MediaTime?
    /// The track's bit rate in bits per second, when known.
    public internal(set) var bitRate: Int?
    /// The track's language tag (ISO 639-2, `eng`), when set.
    public let language: String?
    /// The track's tags (language, handler name, title…), as FFmpeg names them.
    public let metadata: [String: String]
    /// The display matrix as stored (rotation and mirroring), for copying it on.
    let displayMatrix: [Int32]?

    // Audio
    /// Audio: sample frames per second.
    public let sampleRate: Int?
    /// Audio: the channel layout.
    public let channelLayout: ChannelLayout?
    /// Audio: the channel count.
    public var channels: Int? { channelLayout?.channelCount }

    // Video
    /// Display width: the coded size with the rotation applied (width and height swap at 90°/270°).
    public let width: Int?
    /// Display height: the coded size with the rotation applied.
    public let height: Int?
    /// Coded width, as stored.
    public let codedWidth: Int?
    /// Coded height, as stored.
    public let codedHeight: Int?
    /// Clockwise rotation to apply for display, in degrees: 0, 90, 180 or 270 (the convention of
    /// the original series and of the `rotate` tag; FFmpeg's display-matrix angle is counter-clockwise).
    public let rotation: Int
    /// Whether the display matrix also mirrors the picture (negative determinant).
    public let isMirrored: Bool
    /// Shape of one pixel as the container states it (else the codec header), when stated.
    public let sampleAspectRatio: Rational?
    /// Pixel layout of the decoded pictures, when probing found it.
    public let pixelFormat: PixelFormat?
    /// The colour range (`tv` or `pc`), when the stream states it. The colour fields hold FFmpeg's names.
    public let colorRange: String?
    /// The colour matrix (`bt709`…), when stated.
    public let colorSpace: String?
    /// The colour primaries, when stated.
    public let colorPrimaries: String?
    /// The transfer characteristic, when stated.
    public let colorTransfer: String?
    /// Frames (or packets) the container declares for the track, when it does.
    public let frameCount: Int?
    /// Average frame rate, when known.
    public let frameRate: Rational?
    /// The container's average rate (pictures over duration), when it states one: in a stream
    /// timed irregularly it differs from `frameRate`, the rate the pictures are declared at.
    public let averageFrameRate: Rational?
    /// An attached picture (album art), not a moving video track.
    public let isCoverArt: Bool

    /// Subtitles made of text (SubRip, ASS, mov_text, WebVTT…) rather than pictures.
    public var isTextSubtitle: Bool {
        kind == .subtitle && (avcodec_descriptor_get(codec.avID).map { $0.pointee.props & avp_codec_prop_text_sub() != 0 } ?? false)
    }
}

extension TrackInfo {
    init(stream: UnsafePointer<AVStream>) {
        let p = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        kind = switch p.codec_type {
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
        codec = Codec(p.codec_id)
        codecTag = Self.fourcc(p.codec_tag)
        profile = p.profileName
        timeBase = Rational(stream.pointee.time_base)
        duration = stream.pointee.duration > 0
            ? MediaTime(ffmpeg: stream.pointee.duration, timeBase: timeBase) : nil
        startTime = MediaTime(ffmpeg: stream.pointee.start_time, timeBase: timeBase)
        bitRate = p.declaredBitRate
        language = av_dict_get(stream.pointee.metadata, "language", nil, 0).map { String(cString: $0.pointee.value) }
        metadata = dictionaryEntries(stream.pointee.metadata)
        displayMatrix = avp_stream_display_matrix(stream).map { Array(UnsafeBufferPointer(start: $0, count: 9)) }
        let isAudio = kind == .audio
        sampleRate = isAudio && p.sample_rate > 0 ? Int(p.sample_rate) : nil
        channelLayout = isAudio && p.ch_layout.nb_channels > 0 ? ChannelLayout(p.ch_layout) : nil

        let isVideo = kind == .video
        let orientation = Self.orientation(of: stream)
        rotation = isVideo ? orientation.rotation : 0
        isMirrored = isVideo && orientation.mirrored
        pixelFormat = isVideo && p.format >= 0 ? PixelFormat(AVPixelFormat(rawValue: p.format)) : nil
        (colorRange, colorSpace, colorPrimaries, colorTransfer) = isVideo
            ? VideoFormat.colorNames(range: p.color_range, space: p.color_space, primaries: p.color_primaries, transfer: p.color_trc)
            : (nil, nil, nil, nil)
        frameCount = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        let containerSAR = stream.pointee.sample_aspect_ratio, codecSAR = p.sample_aspect_ratio
        sampleAspectRatio = !isVideo ? nil : containerSAR.num > 0 && containerSAR.den > 0 ? Rational(containerSAR)
            : codecSAR.num > 0 && codecSAR.den > 0 ? Rational(codecSAR) : nil
        let known = isVideo && p.width > 0 && p.height > 0
        codedWidth = known ? Int(p.width) : nil
        codedHeight = known ? Int(p.height) : nil
        let swap = rotation == 90 || rotation == 270
        width = swap ? codedHeight : codedWidth
        height = swap ? codedWidth : codedHeight
        // FFmpeg's own guess from the container's and the codec's rates, as the ffmpeg CLI takes it
        // (FFmpeg 7.1 gives a raw 50 fps HEVC stream an average rate of 25).
        let guessed = isVideo ? av_guess_frame_rate(nil, UnsafeMutablePointer(mutating: stream), nil) : AVRational(num: 0, den: 1)
        frameRate = guessed.num > 0 && guessed.den > 0 ? Rational(guessed) : nil
        let average = stream.pointee.avg_frame_rate
        averageFrameRate = isVideo && average.num > 0 && average.den > 0 ? Rational(average) : nil
        isCoverArt = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
    }

    /// Clockwise rotation (multiple of 90) and mirroring from the stream's display matrix.
    static func orientation(of stream: UnsafePointer<AVStream>) -> (rotation: Int, mirrored: Bool) {
        guard let matrix = avp_stream_display_matrix(stream) else { return (0, false) }
        return orientation(matrix: matrix)
    }

    static func orientation(matrix: UnsafePointer<Int32>) -> (rotation: Int, mirrored: Bool) {
        let counterClockwise = av_display_rotation_get(matrix)
        guard counterClockwise.isFinite else { return (0, false) }
        let clockwise = Int((-counterClockwise / 90).rounded()) * 90
        let normalized = ((clockwise % 360) + 360) % 360
        // Determinant of the 2x2 part (16.16 fixed point): negative when the matrix mirrors.
        let determinant = Int64(matrix[0]) * Int64(matrix[4]) - Int64(matrix[1]) * Int64(matrix[3])
        return (normalized, determinant < 0)
    }

    static func fourcc(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * $0)) & 0xFF) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension MediaInfo {
    init(context: InputContext) {
        path = context.path
        let format = context.pointer.pointee.iformat.pointee
        formatName = String(cString: format.name)
        formatLongName = format.long_name.map { String(cString: $0) }
        duration = context.duration
        let rate = context.pointer.pointee.bit_rate
        bitRate = rate > 0 ? Int(rate) : nil
        tracks = (0..<context.streamCount).map { TrackInfo(stream: context.stream($0)) }
        metadata = dictionaryEntries(context.pointer.pointee.metadata)
        let count = Int(context.pointer.pointee.nb_chapters)
        chapters = (0..<count).compactMap { context.pointer.pointee.chapters[$0].map { Chapter(UnsafePointer($0)) } }
        startTime = MediaTime(ffmpeg: context.pointer.pointee.start_time, timeBase: Rational(avp_time_base_q()))
    }
}
