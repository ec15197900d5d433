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
        var session = RemuxSession(input: input, output: output, container: container)
        (session.audio, session.video, session.subtitles) = (tracks.audio, tracks.video(into: container), tracks.subtitles)
        session.keepsMetadata = !noMetadata
        session.muxerOptions = layout.options(overwrite: outputOptions.overwrite, output: output, input: inputOptions)
        session.demuxerOptions = inputOptions.demuxerOptions
        try await session.runPrintingEvents(logging: logging)
    }
}

extension RemuxSession {
    /// Runs the copy (for `remux` and `hls`), printing its notices, warnings and progress line.
    func runPrintingEvents(logging: LoggingOptions) async throws {
        var session = self
        // HLS needs the first progress event to raise the allocator's thresholds (`SegmentAllocation`).
        session.reportsProgress = isTerminal(2) || container == .hls
        try await TranscodeEventPrinter.run(logging: logging, raisesSegmentBuffers: container == .hls) { [session] events in
            try await session.run(events: events)
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
