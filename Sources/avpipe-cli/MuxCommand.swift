import ArgumentParser
import AVPipeline

/// `avpipe mux`: raw H.264/H.265 and/or AAC (ADTS) → MP4/M4A/MOV, without re-encoding.
struct Mux: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Combine a video stream and/or an audio stream into one MP4/M4A/MOV file (no re-encoding).",
        discussion: """
        Example: avpipe mux --video a.h264 --audio a.aac --out a.mp4
        Inputs may be raw streams (Annex B .h264/.h265, ADTS .aac) or any file FFmpeg reads; the first \
        video or audio track is taken. Raw video is timed at --fps when given, else at the frame rate its headers declare, else 25 fps.
        """
    )

    @Option(help: ArgumentHelp("Video input (e.g. a raw .h264/.h265 stream).", valueName: "file"))
    var video: String?

    @Option(help: ArgumentHelp("Audio input (e.g. an ADTS .aac stream).", valueName: "file"))
    var audio: String?

    @Option(name: .customLong("out"), help: ArgumentHelp("Output file: \(MuxContainer.extensionsText).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Frame rate of raw video (25, 29.97, 30000/1001), over what its headers declare; without it: the headers' rate, else 25.", valueName: "rate"))
    var fps: FrameRateArgument?

    @OptionGroup var layout: MuxLayoutOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard video != nil || audio != nil else { throw ValidationError("nothing to mux: pass --video and/or --audio") }
        try layout.validateOutput(output)
        for input in [video, audio].compactMap({ $0 }) { try OutputPaths.ensureDistinct(input: input, output: output) }
    }

    func run() async throws {
        let (video, audio, output, fps) = (video, audio, output, fps?.rate)
        let demuxerOptions = inputOptions.demuxerOptions
        var layoutOptions = layout.options(overwrite: outputOptions.overwrite)
        layoutOptions.container = layout.container(for: output)
        let options = layoutOptions
        try await CommandRunner.run(logging: logging) {
            let muxer = try Muxer(path: output, options: options)
            let videoDemuxer = try video.map { try Demuxer(path: $0, options: demuxerOptions) }
            let audioDemuxer = try audio.map { try Demuxer(path: $0, options: demuxerOptions) }
            if let video, let videoDemuxer {
                try muxer.addVideo(try videoDemuxer.videoTrack(), label: video, frameRate: fps)
            }
            if let audio, let audioDemuxer {
                try muxer.addAudio(try audioDemuxer.audioTrack(), label: audio)
            }
            let total = [videoDemuxer?.info.duration, audioDemuxer?.info.duration].compactMap { $0 }.max()
            let progress = ProgressLine(total: total)
            let summary = try await muxer.run(progress: progress.update)
            progress.finish(at: summary.duration)
            if let video, let videoDemuxer { reportTruncations(videoDemuxer.truncations, input: video) }
            if let audio, let audioDemuxer { reportTruncations(audioDemuxer.truncations, input: audio) }
        }
    }
}
