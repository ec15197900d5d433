import ArgumentParser
import AVPipeline

/// `avpipe remux`: copy a media file's tracks, tags, chapters and cover into a new container,
/// without re-encoding.
struct Remux: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a media file's tracks into MP4/M4A/MOV/MKV/WebM (no re-encoding).",
        discussion: """
        Every audio, video and subtitle track is copied, with the display rotation, the file's and \
        tracks' tags and languages, chapters, gapless information and the cover picture; what the \
        target cannot hold is named in one notice. The output's timeline starts at 0.
        Examples: avpipe remux in.mp4 out.m4a          (an .m4a output takes the audio only)
                  avpipe remux in.mkv out.mp4 --fragmented
                  avpipe remux in.mp4 out.mp4 --audio-track 1 --no-subtitles
        """
    )

    @Argument(help: ArgumentHelp("Media file to copy from.", valueName: "input"))
    var input: String

    @Argument(help: ArgumentHelp("Output file: \(Container.extensionsText).", valueName: "output"))
    var output: String

    @OptionGroup var tracks: CopyTrackOptions

    @Flag(help: "Drop the file's and the tracks' tags (title, artist, language…), chapters and cover; rotation is kept.")
    var noMetadata = false

    @OptionGroup var layout: MuxLayoutOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        let (audioOnly, videoOnly, audioTrack, videoTrack) = (tracks.audioOnly, tracks.videoOnly, tracks.audioTrack, tracks.videoTrack)
        guard !(audioOnly && videoOnly) else { throw ValidationError("--audio-only and --video-only exclude each other") }
        if audioOnly && videoTrack != nil { throw ValidationError("--audio-only copies no video: drop --video-track") }
        if videoOnly && audioTrack != nil { throw ValidationError("--video-only copies no audio: drop --audio-track") }
        try layout.validateOutput(output)
        if (videoOnly || videoTrack != nil) && layout.container(for: output) == .m4a {
            throw ValidationError("an .m4a file holds audio: use .mp4 or .mov for video")
        }
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    func run() async throws {
        let container = layout.container(for: output)!
        let job = CopyJob(input: input, output: output, container: container,
                          audio: tracks.audio, video: tracks.video(into: container),
                          subtitles: tracks.subtitles, keepsMetadata: !noMetadata,
                          options: layout.options(overwrite: outputOptions.overwrite, output: output, input: inputOptions), demuxerOptions: inputOptions.demuxerOptions)
        try await CommandRunner.run(logging: logging) { try await job.run() }
    }
}

/// A stream copy of a file's chosen tracks into a container (what `remux` and `hls` do).
struct CopyJob: Sendable {
    let input: String, output: String
    let container: Container
    let audio: CopyPlan.Choice, video: CopyPlan.Choice
    let subtitles: Bool, keepsMetadata: Bool
    let options: Muxer.Options
    let demuxerOptions: Demuxer.Options

    func run() async throws {
        let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
        var options = options
        options.liveInput = demuxer.isLive
        if container == .flv { try Self.ensureFLVCodecs(demuxer.info, audio: audio != .none, video: video != .none, input: input, output: output) }
        let plan = try CopyPlan(info: demuxer.info, container: container, audio: audio, video: video,
                                subtitles: subtitles, coverArt: keepsMetadata, chapters: keepsMetadata, hls: options.hlsAsWritten)
        guard !plan.tracks.isEmpty else {
            if !plan.leftOut.isEmpty {
                throw AVPipelineError.unsupportedFormat("nothing in '\(input)' can be copied into \(container.rawValue.uppercased()): \(plan.leftOut.joined(separator: "; "))")
            }
            throw video != .none && audio == .none ? AVPipelineError.noVideoStream(path: input) : AVPipelineError.noAudioStream(path: input)
        }
        options.container = container
        options.keepsTrackMetadata = keepsMetadata
        options.timelineOrigin = plan.timelineOrigin
        if keepsMetadata {
            options.metadata = demuxer.info.metadata
            options.chapters = demuxer.info.chapters
            options.coverArt = demuxer.coverArt
        }
        options.attachments = plan.attachments(of: demuxer)
        let muxer = try Muxer(path: output, options: options)
        try muxer.addTracks(of: demuxer, plan: plan, label: input)
        if !plan.leftOut.isEmpty { printNotice("not copied into \(output): \(plan.leftOut.joined(separator: "; "))") }
        if !plan.conversionsText.isEmpty {
            printNotice("\(container.rawValue.uppercased()) cannot hold these subtitles as they are; converted: \(plan.conversionsText.joined(separator: "; "))")
        }
        let progress = ProgressLine(total: demuxer.info.duration)
        let summary = try await muxer.run(progress: SegmentAllocation.progress(for: container, progress.updates))
        progress.finish(at: summary.duration)
        reportLiveEnd(demuxer, input: input)
        reportTruncations(demuxer.truncations, input: input)
    }
}

/// A live input that ended (its publisher stopped) ended the run normally: say so.
func reportLiveEnd(_ demuxer: Demuxer, input: String) {
    if let reason = demuxer.liveEnd { printNotice("'\(input)': the live stream ended (\(reason))") }
}

extension CopyJob {
    /// A copy to RTMP (FLV) takes H.264 and AAC as they are; anything else would leave a track
    /// out of a live stream, so it is refused with the command that converts it.
    static func ensureFLVCodecs(_ info: MediaInfo, audio: Bool, video: Bool, input: String, output: String) throws {
        for track in info.tracks where (track.kind == .video && video && !track.isCoverArt) || (track.kind == .audio && audio) {
            if !Container.flv.canHold(track.codec) {
                throw AVPipelineError.unsupportedCodec("\(track.kind.rawValue) track \(track.index): FLV (RTMP) carries H.264 video and AAC audio, not \(track.codec): encode it (avpipe encode --in \(input) --out \(output))")
            }
        }
    }
}

/// A track choice typed as `N` (from 0) or `all`.
struct TrackChoiceArgument: ExpressibleByArgument {
    let choice: CopyPlan.Choice

    init?(argument: String) {
        if argument.lowercased() == "all" {
            choice = .all
        } else if let index = Int(argument), index >= 0 {
            choice = .index(index)
        } else {
            return nil
        }
    }
}
