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
        var session = DecodeSession(input: input)
        session.audioOutput = output
        session.audioTrack = audioTrack
        session.audioFileFormat = fileFormat?.container
        session.audioFormat = AudioFormatRequest(sampleFormat: SampleFormat(rawValue: sampleFormat)!.packed, sampleRate: rate,
                                                 channelLayout: channels.map { ChannelLayout.default(channelCount: $0) })
        session.videoOutput = video
        session.decodesOnly = null
        session.start = start?.time
        session.duration = duration?.time
        session.overwrite = outputOptions.overwrite
        session.demuxerOptions = inputOptions.demuxerOptions
        session.reportsProgress = isTerminal(2)
        try await TranscodeEventPrinter.run(logging: logging) { [session] events in
            try await session.run(events: events)
        }
    }
}
