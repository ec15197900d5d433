import ArgumentParser
import AVPipeline

/// `avpipe remux`: copy chosen tracks of a media file into a new MP4/M4A/MOV, without re-encoding.
struct Remux: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the main video and/or audio track of a media file into MP4/M4A/MOV (no re-encoding).",
        discussion: """
        Examples: avpipe remux in.mp4 out.m4a          (an .m4a output takes the audio only)
                  avpipe remux in.mkv out.mp4 --fragmented
                  avpipe remux in.mp4 out.mp4 --video-only
        """
    )

    @Argument(help: ArgumentHelp("Media file to copy from.", valueName: "input"))
    var input: String

    @Argument(help: ArgumentHelp("Output file: .mp4, .m4a or .mov.", valueName: "output"))
    var output: String

    @Flag(help: "Copy only the audio track.")
    var audioOnly = false

    @Flag(help: "Copy only the video track.")
    var videoOnly = false

    @Flag(help: "Drop the file's and the tracks' tags (title, artist, language…); rotation is kept.")
    var noMetadata = false

    @OptionGroup var layout: MuxLayoutOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard !(audioOnly && videoOnly) else { throw ValidationError("--audio-only and --video-only exclude each other") }
        try MuxLayoutOptions.validateOutput(output)
        if videoOnly && MuxContainer(path: output) == .m4a {
            throw ValidationError("an .m4a file holds audio: use .mp4 or .mov for --video-only")
        }
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    func run() async throws {
        let (input, output) = (input, output)
        let demuxerOptions = inputOptions.demuxerOptions
        let wantsVideo = !audioOnly && MuxContainer(path: output) != .m4a
        let wantsAudio = !videoOnly
        let keepsMetadata = !noMetadata
        let baseOptions = layout.options(overwrite: outputOptions.overwrite)
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(path: input, options: demuxerOptions)
            // A track that was asked for explicitly must exist; otherwise take what is there.
            let takeVideo = wantsVideo && (demuxer.info.hasVideo || !wantsAudio)
            let takeAudio = wantsAudio && (demuxer.info.hasAudio || !wantsVideo)
            var options = baseOptions
            options.keepsTrackMetadata = keepsMetadata
            if keepsMetadata { options.metadata = demuxer.info.metadata }
            let muxer = try Muxer(path: output, options: options)
            if takeVideo { try muxer.addVideo(try demuxer.videoTrack(), label: input) }
            if takeAudio { try muxer.addAudio(try demuxer.audioTrack(), label: input) }
            if !takeVideo && !takeAudio { throw AVPipelineError.noAudioStream(path: input) }
            let progress = ProgressLine(total: demuxer.info.duration)
            let summary = try await muxer.run(progress: progress.update)
            progress.finish(at: summary.duration)
            reportTruncations(demuxer.truncations, input: input)
        }
    }
}
