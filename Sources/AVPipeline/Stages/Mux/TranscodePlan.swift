internal import CFFmpeg

/// What an encode of a movie does with its input's tracks: the main video track and every audio
/// track (or the one asked for) encoded (or copied, or left out), the subtitles and attachments
/// copied (text subtitles converted where the container needs it), as `CopyPlan` takes them for
/// `remux`; all cut to the chosen part, into the container; and what it leaves out and why.
/// `Muxer.addTracks(of:transcoding:)` builds the chains. Like ffmpeg, an encode takes one video
/// track; unlike ffmpeg's default (one audio, one subtitle track), it keeps every other track the
/// container can carry, as `remux` does.
public struct TranscodePlan: Sendable {
    /// What happens to the video.
    public enum VideoWork: Sendable, Equatable {
        /// Encoded with these settings.
        case encode(VideoEncoderOptions)
        /// Copied as it is.
        case copy
        /// Left out.
        case none
    }

    /// What happens to the audio.
    public enum AudioWork: Sendable {
        /// Encoded to AAC-LC, with `channels` (nil: the input's).
        case aac(AudioEncoderOptions, channels: Int?)
        /// Encoded with another FFmpeg audio encoder (`libopus` for WebM), at `bitRate` (nil: its default).
        case encoder(String, bitRate: Int?)
        /// Copied as it is.
        case copy
        /// Left out.
        case none
    }

    /// What an encode does with a rotated or mirrored video track's pictures.
    public enum Orientation: Sendable, Equatable {
        /// Kept as stored with the display matrix where the container has a field for it
        /// (``Container/keepsDisplayMatrixOfEncode(hls:)``), turned upright elsewhere.
        case automatic
        /// Always turned upright, the matrix dropped (ffmpeg's default, `-autorotate`).
        case upright
        /// Never turned: the matrix is kept where the container can write it and lost, with a
        /// notice, where not (ffmpeg's `-noautorotate`).
        case asStored
    }

    /// The video track taken and what is done with it; nil when none is.
    public let video: (track: TrackInfo, work: VideoWork)?
    /// The audio tracks taken, in the input's order, and what is done with each.
    public let audio: [(track: TrackInfo, work: AudioWork)]
    /// The subtitle tracks and attachments taken (copied, or converted as `conversions` says),
    /// planned as a copy: its `leftOut` is part of this plan's.
    public let copied: CopyPlan
    /// What the encode leaves out of the input, each with the reason.
    public let leftOut: [String]
    /// Where the part begins, counted from the input's start; nil: its start.
    public let start: MediaTime?
    /// How long the part lasts; nil: to the end.
    public let duration: MediaTime?
    /// The input time that becomes 0 in the output (the part's start on the input's timeline).
    public let timelineOrigin: MediaTime?
    /// What the encode does with a rotated or mirrored video's pictures.
    public let orientation: Orientation
    /// For an encoded video: whether its pictures are turned upright, and (when not) whether the
    /// display matrix goes with them (`--width`/`--height` then still mean the displayed picture).
    let videoOrientation: (turns: Bool, keepsMatrix: Bool)

    /// Plans `info`'s encode into `container`. `videoTrack`: which video track (nil: the main
    /// one); `audioTrack`: the one audio track to take (nil: every one; FLV carries the first);
    /// `subtitles`: whether subtitle tracks are taken. Throws `.unsupportedCodec` when the
    /// container cannot hold what would be written, `.noVideoStream`/`.noAudioStream` when nothing
    /// is left to write.
    public init(info: MediaInfo, container: Container, video: VideoWork, audio: AudioWork,
                videoTrack: Int? = nil, audioTrack: Int? = nil, subtitles: Bool = true,
                start: MediaTime? = nil, duration: MediaTime? = nil, hls: HLSOptions = .init(),
                orientation: Orientation = .automatic) throws(AVPipelineError) {
        var leftOut: [String] = []
        let videoTrackInfo = video == .none || !container.holdsVideo ? nil : try Self.pick(info.videoTracks, videoTrack, kind: "video")
        var audioTracks: [TrackInfo] = []
        if case .none = audio {} else if container.holdsAudio {
            if let audioTrack {
                audioTracks = [try Self.pick(info.audioTracks, audioTrack, kind: "audio")].compactMap { $0 }
            } else {
                audioTracks = info.audioTracks
                if container == .flv, audioTracks.count > 1 {
                    for track in audioTracks.dropFirst() { leftOut.append("\(CopyPlan.describe(track)): FLV (RTMP) carries one audio track") }
                    audioTracks = [audioTracks[0]]
                }
            }
        }
        if let track = videoTrackInfo {
            let codec = try Self.outputCodec(of: video, track: track)
            try Self.check(codec, of: track, into: container, hls: hls)
            // An encode turns the pictures upright where the matrix cannot go (`encodedVideo`) unless
            // asked not to; a copy cannot.
            if video == .copy || orientation == .asStored, let loss = Self.orientationLoss(of: track, into: container, hls: hls) {
                leftOut.append(loss)
            }
        }
        for track in audioTracks {
            try Self.check(try Self.outputCodec(of: audio, track: track), of: track, into: container, hls: hls)
        }
        for track in info.tracks where track.kind == .video && !track.isCoverArt && track.index != videoTrackInfo?.index && videoTrackInfo != nil {
            leftOut.append("\(CopyPlan.describe(track)): an encode takes one video track (remux copies every track)")
        }
        // Subtitles and attachments go as a copy takes them (none where the output is audio only).
        let copied = try CopyPlan(info: info, container: container, audio: .none, video: .none,
                                  subtitles: subtitles && container.holdsVideo, coverArt: false, chapters: false, hls: hls)
        leftOut += copied.leftOut
        if videoTrackInfo == nil && audioTracks.isEmpty {
            throw video != .none && container.holdsVideo ? .noVideoStream(path: info.path) : .noAudioStream(path: info.path)
        }
        self.orientation = orientation
        videoOrientation = switch orientation {
        case .automatic: (!container.keepsDisplayMatrixOfEncode(hls: hls), container.keepsDisplayMatrixOfEncode(hls: hls))
        case .upright: (true, false)
        case .asStored: (false, container != .h264 && container != .hevc && container.displayMatrixLoss(hls: hls) == nil)
        }
        self.video = videoTrackInfo.map { ($0, video) }
        self.audio = audioTracks.map { ($0, audio) }
        self.copied = copied
        self.leftOut = leftOut
        self.start = start
        self.duration = duration
        let origin = info.startTime ?? MediaTime(value: 0, timeBase: Rational(1, 1))
        timelineOrigin = start.map { origin + $0 } ?? ([videoTrackInfo] + audioTracks + copied.tracks).compactMap { $0?.startTime }.min()
    }

    /// The part of the input the plan reads, on the file's timeline: from `timelineOrigin`, for
    /// `duration`, with an exact seek when `start` is inside the file. nil when no track has a time.
    var part: TimelinePart? {
        timelineOrigin.map { TimelinePart(from: $0, duration: duration, seeks: start.map { $0.value > 0 } ?? false) }
    }

    /// What a track's copy (or encode as stored) into `container` loses of its orientation; a raw
    /// elementary stream has no header for it either.
    private static func orientationLoss(of track: TrackInfo, into container: Container, hls: HLSOptions) -> String? {
        if (container == .h264 || container == .hevc) && (track.rotation != 0 || track.isMirrored) {
            let what = [track.rotation != 0 ? "rotation (\(track.rotation)°)" : nil, track.isMirrored ? "mirroring" : nil].compactMap { $0 }
            return "the \(what.joined(separator: " and ")) of \(CopyPlan.describe(track)): a raw stream has no place for it"
        }
        return CopyPlan.orientationLoss(of: track, into: container, hls: hls)
    }

    private static func pick(_ candidates: [TrackInfo], _ index: Int?, kind: String) throws(AVPipelineError) -> TrackInfo? {
        let usable = candidates.filter { !$0.isCoverArt }
        guard let index else { return usable.first }
        guard usable.indices.contains(index) else {
            throw .invalidOption(name: "\(kind) track", value: "\(index)",
                                 reason: "the file has \(usable.count) \(kind) track\(usable.count == 1 ? "" : "s")")
        }
        return usable[index]
    }

    /// The codec the FFmpeg encoder `name` writes; `.unsupportedCodec` when this FFmpeg has none of that name.
    public static func codec(ofEncoder name: String, kind: String = "video") throws(AVPipelineError) -> Codec {
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .unsupportedCodec("this FFmpeg build has no '\(name)' \(kind) encoder")
        }
        return Codec(encoder.pointee.id)
    }

    private static func outputCodec(of work: VideoWork, track: TrackInfo) throws(AVPipelineError) -> Codec {
        if case .encode(let options) = work { return try codec(ofEncoder: options.encoder, kind: "video") }
        return track.codec
    }

    private static func outputCodec(of work: AudioWork, track: TrackInfo) throws(AVPipelineError) -> Codec {
        switch work {
        case .aac: .aac
        case .encoder(let name, _): try codec(ofEncoder: name, kind: "audio")
        case .copy, .none: track.codec
        }
    }

    private static func check(_ codec: Codec, of track: TrackInfo, into container: Container, hls: HLSOptions) throws(AVPipelineError) {
        guard !container.canHold(codec, segments: hls.segments) else { return }
        if container == .hls && container.canHold(codec, segments: .fmp4) {
            throw .unsupportedCodec("\(CopyPlan.describe(track)): HLS's MPEG-TS segments cannot hold \(codec); fMP4 segments can (--fmp4)")
        }
        if container == .flv {
            let fix = track.kind == .video ? "--video-codec h264 encodes it" : "AAC encodes it"
            throw .unsupportedCodec("\(CopyPlan.describe(track)): FLV (RTMP) carries H.264 video and AAC audio, not \(codec) (\(fix))")
        }
        throw .unsupportedCodec("\(CopyPlan.describe(track)): \(container.rawValue.uppercased()) cannot hold \(codec)")
    }
}
