import ArgumentParser
import AVPipeline

/// `avpipe mux`: a video stream and/or an audio stream (raw or in any container) into one file,
/// without re-encoding.
struct Mux: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine a video stream and/or an audio stream into one MP4/M4A/MOV/MKV/WebM/TS file or HLS stream (no re-encoding).",
        discussion: """
        Examples: avpipe mux --video a.h264 --audio a.aac --out a.mp4
                  avpipe mux -i a.h264 -i a.aac --out a.ts
        Inputs may be raw streams (Annex B .h264/.h265, ADTS .aac) or any file FFmpeg reads; the first \
        video or audio track is taken. Each -i file gives its first video and first audio track where \
        --video, --audio or an earlier -i has not already given one. Raw video is timed at --fps when given, \
        else at the frame rate its headers declare, else 25 fps. The inputs share one timeline: the \
        output starts at 0 with the earliest first picture or sample (a raw stream starts at 0), the \
        offsets between the tracks kept.
        """
    )

    @Option(help: ArgumentHelp("Video input (e.g. a raw .h264/.h265 stream).", valueName: "file"))
    var video: String?

    @Option(help: ArgumentHelp("Audio input (e.g. an ADTS .aac stream).", valueName: "file"))
    var audio: String?

    @Option(name: .customShort("i"), help: ArgumentHelp("An input holding video and/or audio, as with ffmpeg (repeatable).", valueName: "file"))
    var inputs: [String] = []

    @Option(name: .customLong("out"), help: ArgumentHelp("Output file: \(Container.extensionsText).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Frame rate of raw video (25, 29.97, 30000/1001), over what its headers declare; without it: the headers' rate, else 25.", valueName: "rate"))
    var fps: FrameRateArgument?

    @OptionGroup var layout: MuxLayoutOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard video != nil || audio != nil || !inputs.isEmpty else { throw ValidationError("nothing to mux: pass --video and/or --audio (or -i)") }
        try layout.validateOutput(output)
        for input in [video, audio].compactMap({ $0 }) + inputs { try OutputPaths.ensureDistinct(input: input, output: output) }
    }

    func run() async throws {
        let (video, audio, inputs, output, fps) = (video, audio, inputs, output, fps?.rate)
        let demuxerOptions = inputOptions.demuxerOptions
        var layoutOptions = layout.options(overwrite: outputOptions.overwrite, output: output, input: inputOptions)
        layoutOptions.container = layout.container(for: output)
        let baseOptions = layoutOptions
        try await CommandRunner.run(logging: logging) {
            var videoSource = try video.map { (path: $0, demuxer: try Demuxer(InputOptions.location($0), options: demuxerOptions)) }
            var audioSource = try audio.map { (path: $0, demuxer: try Demuxer(InputOptions.location($0), options: demuxerOptions)) }
            for input in inputs {
                let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
                let givesVideo = videoSource == nil && demuxer.info.hasVideo, givesAudio = audioSource == nil && demuxer.info.hasAudio
                guard demuxer.info.hasVideo || demuxer.info.hasAudio else { throw AVPipelineError.noAudioStream(path: input) }
                guard givesVideo || givesAudio else {
                    throw AVPipelineError.invalidOption(name: "-i", value: input, reason: "its video and audio already come from another input")
                }
                if givesVideo { videoSource = (input, demuxer) }
                if givesAudio { audioSource = (input, demuxer) }
            }
            let videoTrack = try videoSource?.demuxer.videoTrackInfo(), audioTrack = try audioSource?.demuxer.audioTrackInfo()
            var options = baseOptions
            // A TS starts seconds after 0; one origin for all tracks keeps their offsets. A track
            // without a start of its own (a raw stream, timed here from 0) counts as 0.
            let starts = [videoTrack, audioTrack].compactMap { $0 }.map { $0.startTime ?? MediaTime(value: 0, timeBase: $0.timeBase) }
            options.timelineOrigin = starts.min()
            let muxer = try Muxer(path: output, options: options)
            if let track = videoTrack, let loss = CopyPlan.orientationLoss(of: track, into: muxer.container, hls: options.hls) {
                printNotice("not copied into \(output): \(loss)")
            }
            if let (path, demuxer) = videoSource { try muxer.addVideo(try demuxer.videoTrack(), label: path, frameRate: fps) }
            if let (path, demuxer) = audioSource { try muxer.addAudio(try demuxer.audioTrack(), label: path) }
            let total = [videoSource?.demuxer.info.duration, audioSource?.demuxer.info.duration].compactMap { $0 }.max()
            let progress = ProgressLine(total: total)
            let summary = try await muxer.run(progress: SegmentAllocation.progress(for: muxer.container, progress.updates))
            progress.finish(at: summary.duration)
            if let (path, demuxer) = videoSource { printMessage(TranscodeMessages.truncations(demuxer.truncations, input: path)) }
            if let (path, demuxer) = audioSource, audioSource?.demuxer !== videoSource?.demuxer {
                printMessage(TranscodeMessages.truncations(demuxer.truncations, input: path))
            }
        }
    }
}
