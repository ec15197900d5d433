import ArgumentParser
import AVPipeline

/// `avpipe decode`: the audio track of any file libavformat reads → PCM (WAV, FLAC, AIFF, bare
/// samples…), and/or its video track → pictures (Y4M or bare planes).
struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode the audio track of a media file to PCM (WAV, FLAC, AIFF, …), and/or its video track to pictures.",
        discussion: """
        Examples: avpipe decode input.mp4 --out out.wav --sample-format s16 --rate 48000 --channels 2
                  avpipe decode input.mp4 --video out.y4m          (YUV4MPEG2, as ffmpeg -f yuv4mpegpipe)
                  avpipe decode input.mkv --video out.yuv --out out.wav
        A .yuv file holds bare planes: the pixel format and size are printed for the reader.
        """
    )

    @Argument(help: ArgumentHelp("Media file to decode (MP4, M4A, ADTS .aac, MKV, MPEG-TS, …).", valueName: "input"))
    var input: String

    @Option(name: .customLong("out"), help: ArgumentHelp("Audio file to write: .wav, .flac, .aiff, .pcm (bare samples), .mp3 or .opus (the latter two when FFmpeg has their encoder); - for WAV on standard output.", valueName: "file"))
    var outputOption: String?

    @Argument(help: ArgumentHelp("The audio file as a bare name, as ffmpeg takes it (avpipe decode in.mp4 out.wav): the same as --out.", valueName: "output"))
    var bareOutput: String?

    /// The audio output, from --out or the bare name (validated: not both).
    var output: String? { outputOption ?? bareOutput }

    @Option(help: ArgumentHelp("Audio track to decode (0 = first); default: the file's main one.", valueName: "n"))
    var audioTrack: Int?

    @Option(name: .customLong("format"), help: ArgumentHelp("Audio file format when the name does not say it: wav, pcm, flac, aiff, mp3, opus.", valueName: "format"))
    var fileFormat: FormatArgument<AudioFileContainers>?

    @Option(help: ArgumentHelp("Picture file to write the video to: .y4m (YUV4MPEG2) or .yuv (raw planes).", valueName: "file"))
    var video: String?

    @Option(help: ArgumentHelp("Sample format of the WAV: u8, s16, s32, flt or dbl.", valueName: "format"))
    var sampleFormat: String = "s16"

    @Option(help: "Sample rate in Hz (default: the input's).")
    var rate: Int?

    @Option(help: "Channel count (default: the input's); FFmpeg's default layout for the count.")
    var channels: Int?

    @Flag(help: "Decode the main video and audio tracks and write nothing (as ffmpeg -f null -): to check that a file decodes, or to time decoding.")
    var null = false

    @Option(help: ArgumentHelp("Start at this time (seconds or hh:mm:ss.xxx), exactly: the first picture is the one shown then, the first sample that instant's.", valueName: "time"))
    var start: TimeArgument?

    @Option(help: ArgumentHelp("Decode this long (seconds or hh:mm:ss.xxx), to the sample.", valueName: "time"))
    var duration: TimeArgument?

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var logging: LoggingOptions

    static let wavSampleFormats: [SampleFormat] = [.u8, .s16, .s32, .flt, .dbl]

    func validate() throws {
        guard let format = SampleFormat(rawValue: sampleFormat), Self.wavSampleFormats.contains(format.packed) else {
            throw ValidationError("--sample-format must be one of \(Self.wavSampleFormats.map(\.rawValue).joined(separator: ", ")) (got '\(sampleFormat)')")
        }
        if let rate, !(1...768_000).contains(rate) { throw ValidationError("--rate must be between 1 and 768000 (got \(rate))") }
        if let channels, !(1...64).contains(channels) { throw ValidationError("--channels must be between 1 and 64 (got \(channels))") }
        if outputOption != nil, let bareOutput { throw ValidationError("unexpected argument '\(bareOutput)': the output is already named by --out") }
        if let audioTrack, audioTrack < 0 { throw ValidationError("--audio-track counts from 0 (got \(audioTrack))") }
        guard output != nil || video != nil || null else { throw ValidationError("nothing to do: pass --out (audio) and/or --video, or --null") }
        guard !(null && (output != nil || video != nil)) else { throw ValidationError("--null writes nothing: leave out --out and --video") }
        if let output {
            try OutputPaths.ensureDistinct(input: input, output: output)
            guard fileFormat != nil || output == OutputPaths.standardOutput || Container(path: output)?.isAudioFile == true else {
                throw ValidationError("cannot tell the audio format from '\(output)': name it .wav, .flac, .aiff, .pcm, .mp3 or .opus, or pass --format")
            }
        }
        try OutputPaths.ensureOneStandardOutput([output, video])
        if let video, video != OutputPaths.standardOutput {
            guard let container = Container(path: video), container == .y4m || container == .rawYUV else {
                throw ValidationError("--video writes pictures: name the file .y4m or .yuv (got '\(video)')")
            }
            try OutputPaths.ensureDistinct(input: input, output: video)
            if video == output { throw ValidationError("--out and --video name the same file") }
        }
    }

    func run() async throws {
        let (input, output, video, overwrite, demuxerOptions) = (input, output, video, outputOptions.overwrite, inputOptions.demuxerOptions)
        let (start, duration, null, audioTrack) = (start?.time, duration?.time, null, audioTrack)
        let fileFormat = fileFormat?.container ?? (output == OutputPaths.standardOutput ? .wav : output.flatMap(Container.init(path:)))
        let request = AudioFormatRequest(sampleFormat: SampleFormat(rawValue: sampleFormat)!.packed, sampleRate: rate,
                                         channelLayout: channels.map { ChannelLayout.default(channelCount: $0) })
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
            try TranscodeMessages.ensureStart(start, within: demuxer.info)
            // Times are on the file's timeline, which may not start at 0 (MPEG-TS): as ffmpeg's -ss. An
            // Opus track in Matroska starts where its pre-skip ends.
            let decodesAudio = output != nil || (null && demuxer.info.hasAudio)
            let origin = (decodesAudio ? demuxer.presentationStart(ofAudio: try demuxer.audioTrackInfo(audioTrack)) : demuxer.info.startTime)
                ?? MediaTime(value: 0, timeBase: Rational(1, 1))
            let from = start.map { origin + $0 } ?? origin
            if let start, start.value > 0 { try demuxer.seek(to: from, mode: .exact) }
            let end = duration.map { from + $0 }
            try await withThrowingTaskGroup(of: String.self) { group in
                // Every track is asked for before any is read (an input that cannot seek is read once).
                let decodesVideo = video != nil || (null && demuxer.info.hasVideo)
                let audioDecoder = decodesAudio ? try demuxer.audioTrack(audioTrack).decodeAudio() : nil
                let videoDecoder = decodesVideo ? try demuxer.videoTrack().decodeVideo() : nil
                if null {
                    if let audioDecoder {
                        group.addTask {
                            while try await audioDecoder.next() != nil {}
                            printMessage(TranscodeMessages.skippedPackets(audioDecoder.statistics, kind: "audio"))
                            return ""
                        }
                    }
                    if let videoDecoder {
                        group.addTask {
                            while try await videoDecoder.next() != nil {}
                            printMessage(TranscodeMessages.skippedPackets(videoDecoder.statistics, kind: "video"))
                            return ""
                        }
                    }
                } else {
                    if let output, let audioDecoder {
                        group.addTask {
                            let progress = ProgressLine(total: demuxer.info.duration, enabled: video == nil && isTerminal(2))
                            // Decoding on one core, conversion and writing on the other (600 s to 48 kHz: 459 → 335 ms).
                            let decoded = try audioDecoder.prefetched()
                            // A live input is joined mid-stream: --duration counts from its first sample.
                            let (summary, written) = if let duration, demuxer.isLive {
                                try await Self.writeAudio(decoded.lasting(duration).resampled(to: request), to: output, format: fileFormat,
                                                          overwrite: overwrite, progress: progress)
                            } else if let duration {
                                try await Self.writeAudio(decoded.ending(after: duration, from: from).resampled(to: request), to: output, format: fileFormat,
                                                          overwrite: overwrite, progress: progress)
                            } else {
                                try await Self.writeAudio(decoded.resampled(to: request), to: output, format: fileFormat,
                                                          overwrite: overwrite, progress: progress)
                            }
                            progress.finish(at: summary.duration)
                            if fileFormat == .pcm {
                                let packed = written.sampleFormat.packed
                                let raw = packed == .u8 ? "u8" : "\(packed)le"
                                printNotice("\(output): bare \(raw) samples, \(written.sampleRate) Hz, \(written.channelCount) channel(s) (ffplay -f \(raw) -ar \(written.sampleRate) -ch_layout \(written.channelLayout) \(output))")
                            }
                            printMessage(TranscodeMessages.skippedPackets(audioDecoder.statistics, kind: "audio"))
                            return output
                        }
                    }
                    if let video, let videoDecoder {
                        group.addTask {
                            let progress = ProgressLine(total: demuxer.info.duration)
                            // … and from its first picture.
                            let (summary, written) = if let duration, demuxer.isLive {
                                try await Self.writePictures(videoDecoder.lasting(duration), to: video, overwrite: overwrite, progress: progress)
                            } else if let end {
                                try await Self.writePictures(videoDecoder.ending(at: end), to: video, overwrite: overwrite, progress: progress)
                            } else {
                                try await Self.writePictures(videoDecoder, to: video, overwrite: overwrite, progress: progress)
                            }
                            progress.finish(at: summary.duration)
                            if Container(path: video) == .rawYUV, let format = written {
                                printNotice("\(video): raw \(format.pixelFormat) \(format.width)x\(format.height) pictures (ffplay -f rawvideo -pixel_format \(format.pixelFormat) -video_size \(format.width)x\(format.height) \(video))")
                            }
                            printMessage(TranscodeMessages.skippedPackets(videoDecoder.statistics, kind: "video"))
                            return video
                        }
                    }
                }
                try await allOrNothing(&group)
            }
            printMessage(TranscodeMessages.liveEnd(demuxer, input: input))
            printMessage(TranscodeMessages.truncations(demuxer.truncations, input: input))
        }
    }
}

extension Decode {
    static func writeAudio<PCM: SampleSource>(_ pcm: PCM, to path: String, format: Container?, overwrite: Bool,
                                              progress: ProgressLine) async throws -> (WriteSummary, AudioFormat)
    where PCM.Buffer == PCMBuffer {
        let writer = try AudioFileWriter(upstream: pcm, path: path, format: format, overwrite: overwrite)
        return (try await writer.run(progress: progress.update), writer.writtenFormat)
    }

    static func writePictures<Pictures: SampleSource>(_ pictures: Pictures, to path: String, overwrite: Bool,
                                                      progress: ProgressLine) async throws -> (WriteSummary, VideoFormat?)
    where Pictures.Buffer == VideoFrame {
        // Standard output gets YUV4MPEG2: it carries the picture format, which raw planes do not.
        let writer = try VideoFrameWriter(upstream: pictures, path: path, container: path == OutputPaths.standardOutput ? .y4m : nil,
                                          overwrite: overwrite)
        let summary = try await writer.run(progress: progress.update)
        return (summary, writer.writtenFormat)
    }
}

