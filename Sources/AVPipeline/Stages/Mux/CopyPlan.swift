internal import CFFmpeg

/// Which tracks of a file a copy (remux) into a container takes, in the file's order, and what it
/// leaves out and why — so that nothing is dropped without the user being told.
///
/// By default every audio, video and subtitle track is taken (cover art travels as the file's
/// cover, not as a track), and every attachment (fonts…) into Matroska; what the target container
/// cannot hold is listed in `leftOut`.
public struct CopyPlan: Sendable {
    /// Which tracks of a kind to take.
    public enum Choice: Sendable, Equatable {
        /// Every track of the kind.
        case all
        /// No track of the kind.
        case none
        /// The N-th track of the kind (0 = first, in container order).
        case index(Int)
    }

    /// What the copy takes, in the input's track order.
    public let tracks: [TrackInfo]
    /// Tracks and other parts of the input the copy leaves out, each with the reason.
    public let leftOut: [String]
    /// Text subtitle tracks (by input index) the target cannot hold as they are, and the text
    /// format they are converted to on the way (see `SubtitleConverter`).
    public let conversions: [Int: Codec]
    /// The attachment tracks taken (a Matroska output's files: `Muxer.Options.attachments`).
    public let attachments: [TrackInfo]

    /// `coverArt`, `chapters`: whether the copy wants the input's cover picture (which only MP4
    /// and M4A keep) and chapters (which MPEG-TS cannot hold). `hls`: how an HLS output is
    /// written (its segments). A track that HLS's TS segments cannot hold but fMP4 segments can (AV1, VP9)
    /// is refused rather than left out: the remedy is one option away.
    public init(info: MediaInfo, container: Container, audio: Choice = .all, video: Choice = .all,
                subtitles: Bool = true, coverArt: Bool = true, chapters: Bool = true,
                hls: HLSOptions = .init()) throws(AVPipelineError) {
        let chosen = try Self.pick(info.audioTracks, audio, kind: "audio") + Self.pick(info.videoTracks, video, kind: "video")
            + (subtitles ? info.subtitleTracks : [])
        var tracks: [TrackInfo] = []
        var leftOut: [String] = []
        var conversions: [Int: Codec] = [:]
        var attachments: [TrackInfo] = []
        for track in info.tracks {
            if chosen.contains(where: { $0.index == track.index }) {
                if container == .hls && track.kind == .subtitle {
                    leftOut.append("\(Self.describe(track)): HLS streams carry audio and video only")
                } else if container.canHold(track.codec, segments: hls.segments) {
                    tracks.append(track)
                    if let loss = Self.orientationLoss(of: track, into: container, hls: hls) { leftOut.append(loss) }
                } else if container == .hls && container.canHold(track.codec, segments: .fmp4) {
                    throw .unsupportedCodec("\(Self.describe(track)): HLS's MPEG-TS segments cannot hold \(track.codec); fMP4 segments can (--fmp4)")
                } else if track.kind == .subtitle, track.isTextSubtitle, let target = Self.textSubtitleCodec(of: container),
                          avcodec_find_decoder(track.codec.avID) != nil, avcodec_find_encoder(target.avID) != nil {
                    tracks.append(track)
                    conversions[track.index] = target
                } else {
                    leftOut.append("\(Self.describe(track)): \(container.rawValue.uppercased()) cannot hold \(track.codec)")
                }
            } else if track.isCoverArt {
                if coverArt && container != .mp4 && container != .m4a {
                    leftOut.append("the cover picture: \(container.rawValue.uppercased()) has no place for one (.mp4 and .m4a do)")
                }
            } else if track.kind == .data && track.codecTag == "text" && !info.chapters.isEmpty {
                continue  // MP4's chapter-title track: the chapters are copied as chapters
            } else if track.kind == .attachment {
                if !container.holdsAttachments {
                    leftOut.append("\(Self.describe(track)): \(container.rawValue.uppercased()) has no place for attachments (.mkv does)")
                } else if track.metadata["filename"] == nil {
                    leftOut.append("\(Self.describe(track)): an attachment without a file name")
                } else {
                    attachments.append(track)
                }
            } else if track.kind == .data || track.kind == .unknown {
                leftOut.append("\(Self.describe(track)): only audio, video and subtitles are copied")
            }
        }
        if chapters && (container == .ts || container == .hls) && !info.chapters.isEmpty {
            leftOut.append("\(info.chapters.count) chapter\(info.chapters.count == 1 ? "" : "s"): \(container == .ts ? "TS" : "HLS") has no place for them")
        }
        self.tracks = tracks
        self.leftOut = leftOut
        self.conversions = conversions
        self.attachments = attachments
    }

    /// The text subtitle format each container holds.
    static func textSubtitleCodec(of container: Container) -> Codec? {
        switch container {
        case .mp4, .m4a, .mov: Codec(AV_CODEC_ID_MOV_TEXT)
        case .mkv: Codec(AV_CODEC_ID_SUBRIP)
        case .webm: Codec(AV_CODEC_ID_WEBVTT)
        case .ts, .hls: nil
        default: nil  // no subtitle tracks (`Container.holdsSubtitles`)
        }
    }

    /// "subtitle track 3 (subrip, deu) as mov_text", one per conversion, in track order.
    public var conversionsText: [String] {
        tracks.compactMap { track in conversions[track.index].map { "\(Self.describe(track)) as \($0)" } }
    }

    private static func pick(_ candidates: [TrackInfo], _ choice: Choice, kind: String) throws(AVPipelineError) -> [TrackInfo] {
        switch choice {
        case .all: return candidates
        case .none: return []
        case .index(let index):
            guard candidates.indices.contains(index) else {
                throw .invalidOption(name: "\(kind) track", value: "\(index)",
                                     reason: "the file has \(candidates.count) \(kind) track\(candidates.count == 1 ? "" : "s")")
            }
            return [candidates[index]]
        }
    }

    /// "subtitle track 2 (subrip, eng)", "attachment track 3 (ttf, font.ttf)".
    static func describe(_ track: TrackInfo) -> String {
        let details = [track.codecTag ?? track.codec.name, track.language, track.kind == .attachment ? track.metadata["filename"] : nil]
            .compactMap { $0 }.filter { $0 != "und" }
        return "\(track.kind) track \(track.index) (\(details.joined(separator: ", ")))"
    }

    /// "the rotation (90°) of video track 0 (avc1): TS has no place for it", when a copy of
    /// `track` into `container` loses how its pictures are meant to be turned (a copy's plan lists
    /// it in `leftOut`; other muxing jobs can say it too).
    public static func orientationLoss(of track: TrackInfo, into container: Container, hls: HLSOptions) -> String? {
        guard track.kind == .video, track.rotation != 0 || track.isMirrored,
              let reason = container.displayMatrixLoss(hls: hls) else { return nil }
        let what = [track.rotation != 0 ? "rotation (\(track.rotation)°)" : nil, track.isMirrored ? "mirroring" : nil].compactMap { $0 }
        return "the \(what.joined(separator: " and ")) of \(describe(track)): \(reason)"
    }

    /// Where the copy's timeline starts: the earliest start among its tracks (see
    /// `Muxer.Options.timelineOrigin`).
    public var timelineOrigin: MediaTime? { tracks.compactMap(\.startTime).min() }
}

extension Muxer {
    /// Adds the tracks `plan` takes from `demuxer`, in its order; returns how many. (Its
    /// attachments go in `Options.attachments`: `CopyPlan.attachments(of:)`.)
    @discardableResult
    public func addTracks(of demuxer: Demuxer, plan: CopyPlan, label: String? = nil) throws -> Int {
        let label = label ?? demuxer.info.path
        for track in plan.tracks {
            let track = try demuxer.described(track)
            switch track.kind {
            case .audio: try addAudio(DemuxedAudioTrack(demuxer: demuxer, track: track), label: label)
            case .video: try addVideo(DemuxedVideoTrack(demuxer: demuxer, track: track), label: label)
            case .subtitle: try addSubtitles(of: demuxer, track, plan: plan, label: label)
            default: continue
            }
        }
        return plan.tracks.count
    }

    /// Adds subtitle `track` of `demuxer`, converted when `plan` says so; cut to `part` (input
    /// times; nil: whole) when given.
    func addSubtitles(of demuxer: Demuxer, _ track: TrackInfo, plan: CopyPlan, label: String,
                      part: (start: MediaTime?, end: MediaTime?)? = nil) throws {
        let demuxed = try DemuxedSubtitleTrack(demuxer: demuxer, track: try demuxer.described(track))
        if let part {
            try addSubtitles(SubtitleWindow(demuxed, start: part.start, end: part.end), converting: plan.conversions[track.index], label: label)
        } else {
            try addSubtitles(demuxed, converting: plan.conversions[track.index], label: label)
        }
    }

    private func addSubtitles<Upstream: SampleSource>(_ subtitles: Upstream, converting target: Codec?, label: String) throws
    where Upstream.Buffer == EncodedSubtitlePacket {
        if let target {
            try addSubtitles(SubtitleConverter(subtitles, to: target), label: label)
        } else {
            try addSubtitles(subtitles, label: label)
        }
    }
}

extension CopyPlan {
    /// The attachments the plan takes, read from `demuxer` (for `Muxer.Options.attachments`).
    public func attachments(of demuxer: Demuxer) -> [Attachment] {
        attachments.compactMap(demuxer.attachment)
    }
}
