/// A stream copy of a file's chosen tracks into a container, without re-encoding: what `avpipe
/// remux` and `avpipe hls` do. The timeline starts at 0; the display rotation, tags and track
/// languages, chapters, cover picture and attachments are carried (the descriptive ones only with
/// `keepsMetadata`); what the target cannot hold is left out and named in a notice, subtitles it
/// cannot hold as they are are converted. A copy to FLV (RTMP) takes only H.264 and AAC.
///
/// ```swift
/// let session = RemuxSession(input: "movie.mkv", output: "movie.mp4", container: .mp4)
/// try await session.run { event in if case .notice(let text) = event { print(text) } }
/// ```
public struct RemuxSession: Sendable {
    /// The input, as given: a path (`-` for standard input) or a URL as `Demuxer` takes it.
    public let input: String
    /// The output: a path, an HLS playlist (`.m3u8`), or a network URL.
    public let output: String
    /// The container written.
    public let container: Container
    /// Which audio tracks are copied.
    public var audio: CopyPlan.Choice = .all
    /// Which video tracks are copied (cover art is metadata, not counted).
    public var video: CopyPlan.Choice = .all
    /// Whether subtitle tracks are copied.
    public var subtitles = true
    /// Whether the file's and tracks' tags, chapters and cover are carried (rotation always is).
    public var keepsMetadata = true
    /// How the output is written (overwrite, real time, HLS, network); the session sets the
    /// container, the timeline origin, the metadata and whether the input is live.
    public var muxerOptions = Muxer.Options()
    /// How the input is opened.
    public var demuxerOptions = Demuxer.Options()
    /// Whether `.progress` events are sent (each costs a call per packet).
    public var reportsProgress = true

    /// A copy of `input` into `output`, written as `container`.
    public init(input: String, output: String, container: Container) {
        self.input = input
        self.output = output
        self.container = container
    }

    /// Copies, sending `events` (progress, notices, warnings) from the running task, and returns
    /// what was written. Throws `.unsupportedFormat` when nothing chosen can be copied into the
    /// container, `.noAudioStream`/`.noVideoStream` when the input has no such track.
    @discardableResult
    public func run(events: (@Sendable (TranscodeEvent) -> Void)? = nil) async throws -> MuxSummary {
        let send: @Sendable (TranscodeEvent) -> Void = events ?? { _ in }
        let demuxer = try Demuxer(InputLocation(argument: input), options: demuxerOptions)
        var muxerOptions = muxerOptions
        muxerOptions.liveInput = demuxer.isLive
        if container == .flv { try ensureFLVCodecs(demuxer.info) }
        let plan = try CopyPlan(info: demuxer.info, container: container, audio: audio, video: video, subtitles: subtitles,
                                coverArt: keepsMetadata, chapters: keepsMetadata, hls: muxerOptions.hlsAsWritten)
        guard !plan.tracks.isEmpty else {
            if !plan.leftOut.isEmpty {
                throw AVPipelineError.unsupportedFormat("nothing in '\(input)' can be copied into \(container.rawValue.uppercased()): \(plan.leftOut.joined(separator: "; "))")
            }
            throw video != .none && audio == .none ? AVPipelineError.noVideoStream(path: input) : AVPipelineError.noAudioStream(path: input)
        }
        let muxer = try Muxer(path: output, options: options(muxerOptions, for: demuxer, plan: plan))
        try muxer.addTracks(of: demuxer, plan: plan, label: input)
        if !plan.leftOut.isEmpty { send(.notice("not copied into \(output): \(plan.leftOut.joined(separator: "; "))")) }
        if !plan.conversionsText.isEmpty {
            send(.notice("\(container.rawValue.uppercased()) cannot hold these subtitles as they are; converted: \(plan.conversionsText.joined(separator: "; "))"))
        }
        let meter = events != nil && reportsProgress ? TranscodeProgressMeter(total: demuxer.info.duration, pictureRate: nil, send: send) : nil
        let summary = try await muxer.run(progress: meter.map { $0.update })
        meter?.finish(at: summary.duration, complete: true)
        for message in [TranscodeMessages.liveEnd(demuxer, input: input), TranscodeMessages.truncations(demuxer.truncations, input: input)] {
            message.map(send)
        }
        return summary
    }

    /// `options` with what the copy decides: the container, the timeline origin, the metadata.
    private func options(_ options: Muxer.Options, for demuxer: Demuxer, plan: CopyPlan) -> Muxer.Options {
        var options = options
        options.container = container
        options.keepsTrackMetadata = keepsMetadata
        options.timelineOrigin = plan.timelineOrigin
        if keepsMetadata {
            options.metadata = demuxer.info.metadata
            options.chapters = demuxer.info.chapters
            options.coverArt = demuxer.coverArt
        }
        options.attachments = plan.attachments(of: demuxer)
        return options
    }

    /// A copy to RTMP (FLV) takes H.264 and AAC as they are; anything else would leave a track
    /// out of a live stream, so it is refused with the command that converts it.
    private func ensureFLVCodecs(_ info: MediaInfo) throws {
        for track in info.tracks where (track.kind == .video && video != .none && !track.isCoverArt) || (track.kind == .audio && audio != .none) {
            if !Container.flv.canHold(track.codec) {
                throw AVPipelineError.unsupportedCodec("\(track.kind.rawValue) track \(track.index): FLV (RTMP) carries H.264 video and AAC audio, not \(track.codec): encode it (avpipe encode --in \(input) --out \(output))")
            }
        }
    }
}
