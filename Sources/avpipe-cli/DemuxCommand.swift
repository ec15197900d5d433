import ArgumentParser
import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `avpipe demux`: MP4/MOV/M4A/MKV/TS… → ADTS `.aac` and/or Annex B `.h264`/`.h265`.
struct Demux: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Extract the audio (ADTS .aac) and/or video (Annex B .h264/.h265) of a media file.",
        discussion: """
        Examples: avpipe demux in.mp4 --audio out.aac --video out.h264
                  avpipe demux in.mkv --audio second.aac --audio-track 1
        The audio must be AAC; the video H.264 (.h264/.264) or H.265 (.h265/.hevc/.265).
        """
    )

    @Argument(help: ArgumentHelp("Media file to split.", valueName: "input"))
    var input: String

    @Option(help: ArgumentHelp("Write the audio track here as ADTS AAC (.aac).", valueName: "file"))
    var audio: String?

    @Option(help: ArgumentHelp("Write the video track here as Annex B (.h264 or .h265/.hevc).", valueName: "file"))
    var video: String?

    @Option(help: "Which audio track, counting from 0 in file order (default: the main one).")
    var audioTrack: Int?

    @Option(help: "Which video track, counting from 0 in file order (default: the main one).")
    var videoTrack: Int?

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard audio != nil || video != nil else { throw ValidationError("nothing to do: pass --audio and/or --video") }
        if let audio, audio != OutputPaths.standardOutput {
            guard Container(path: audio) == .adts else {
                throw ValidationError("--audio writes ADTS AAC: name the file .aac (got '\(audio)')")
            }
            try OutputPaths.ensureDistinct(input: input, output: audio)
        }
        if let video, video != OutputPaths.standardOutput {
            guard VideoOutput.codec(of: Container(path: video)) != nil else {
                throw ValidationError("--video writes a raw stream: name the file .h264 or .h265/.hevc (got '\(video)')")
            }
            try OutputPaths.ensureDistinct(input: input, output: video)
        }
        try OutputPaths.ensureOneStandardOutput([audio, video])
        if let audio, let video, audio == video { throw ValidationError("--audio and --video name the same file") }
        for (name, value) in [("--audio-track", audioTrack), ("--video-track", videoTrack)] {
            if let value, value < 0 { throw ValidationError("\(name) counts from 0 (got \(value))") }
        }
    }

    func run() async throws {
        let (input, audio, video, audioTrack, videoTrack) = (input, audio, video, audioTrack, videoTrack)
        let demuxerOptions = inputOptions.demuxerOptions
        let overwrite = outputOptions.overwrite
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
            // Every check that can fail is done before either output is started.
            let audioIndex = try audio.map { path in try AudioOutput.check(demuxer, track: audioTrack, path: path) }
            let videoIndex = try video.map { path in try VideoOutput.check(demuxer, track: videoTrack, path: path) }
            try await withThrowingTaskGroup(of: String.self) { group in
                // Both tracks exist before either is read: an input that cannot seek (a pipe) is
                // read once, for the tracks asked for by then.
                let audioSource = try audioIndex.map { try demuxer.audioTrack($0).requiring(AAC.self) }
                let videoSource = try videoIndex.map { try demuxer.videoTrack($0) }
                // One output draws the progress line: video when there is one, since it is the bulk.
                if let audio, let audioSource {
                    group.addTask {
                        try await AudioOutput.write(demuxer, source: audioSource, to: audio, overwrite: overwrite,
                                                    showsProgress: video == nil)
                        return audio
                    }
                }
                if let video, let videoSource {
                    group.addTask {
                        try await VideoOutput.write(demuxer, source: videoSource, to: video, overwrite: overwrite)
                        return video
                    }
                }
                try await OutputGroup.allOrNothing(&group)
            }
            printMessage(TranscodeMessages.truncations(demuxer.truncations, input: input))
        }
    }
}

/// The audio half of `demux`: AAC only, since ADTS frames carry nothing else.
enum AudioOutput {
    static func check(_ demuxer: Demuxer, track: Int?, path: String) throws -> Int? {
        let codec = try demuxer.audioTrackInfo(track).codec
        guard codec == .aac else {
            throw AVPipelineError.unsupportedCodec("the audio track is \(codec); an ADTS .aac file holds AAC only")
        }
        return track
    }

    static func write(_ demuxer: Demuxer, source: AudioCodecNarrowing<DemuxedAudioTrack, AAC>, to path: String,
                      overwrite: Bool, showsProgress: Bool) async throws {
        let progress = ProgressLine(total: demuxer.info.duration, enabled: showsProgress && isTerminal(2))
        let summary = try await source.writeADTS(to: path, overwrite: overwrite, progress: progress.updates)
        progress.finish(at: summary.duration)
    }
}

/// The video half of `demux`: H.264 or H.265, converted to Annex B, into a file whose extension
/// matches the codec.
enum VideoOutput {
    /// The codec a raw video container holds.
    static func codec(of container: Container?) -> Codec? {
        switch container {
        case .h264: .h264
        case .hevc: .hevc
        default: nil
        }
    }

    static func check(_ demuxer: Demuxer, track: Int?, path: String) throws -> Int? {
        let codec = try demuxer.videoTrackInfo(track).codec
        let wanted = Self.codec(of: Container(path: path))
        guard codec == .h264 || codec == .hevc else {
            throw AVPipelineError.unsupportedCodec("the video track is \(codec); raw video output is H.264 or H.265")
        }
        // Standard output takes the track's own codec.
        guard codec == wanted || path == OutputPaths.standardOutput else {
            let fitting = codec == .h264 ? ".h264" : ".h265 or .hevc"
            throw AVPipelineError.invalidOption(name: "--video", value: path,
                                                reason: "the video track is \(codec == .h264 ? "H.264" : "H.265"): name the file \(fitting)")
        }
        return track
    }

    static func write(_ demuxer: Demuxer, source: DemuxedVideoTrack, to path: String, overwrite: Bool) async throws {
        let progress = ProgressLine(total: demuxer.info.duration)
        let summary = try await source.annexB().writeRawVideo(to: path, overwrite: overwrite, progress: progress.updates)
        progress.finish(at: summary.duration)
    }
}
