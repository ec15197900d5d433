import ArgumentParser
import AVPipeline

/// `avpipe decode`: the audio track of any file libavformat reads → PCM WAV.
struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode the audio track of a media file to a PCM WAV file.",
        discussion: "Example: avpipe decode input.mp4 --out out.wav --sample-format s16 --rate 48000 --channels 2"
    )

    @Argument(help: ArgumentHelp("Media file to decode (MP4, M4A, ADTS .aac, MKV, MPEG-TS, …).", valueName: "input"))
    var input: String

    @Option(name: .customLong("out"), help: ArgumentHelp("WAV file to write.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Sample format of the WAV: u8, s16, s32, flt or dbl.", valueName: "format"))
    var sampleFormat: String = "s16"

    @Option(help: "Sample rate in Hz (default: the input's).")
    var rate: Int?

    @Option(help: "Channel count (default: the input's); FFmpeg's default layout for the count.")
    var channels: Int?

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
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    func run() async throws {
        let (input, output, overwrite, demuxerOptions) = (input, output, outputOptions.overwrite, inputOptions.demuxerOptions)
        let request = AudioFormatRequest(sampleFormat: SampleFormat(rawValue: sampleFormat)!.packed, sampleRate: rate,
                                         channelLayout: channels.map { ChannelLayout.default(channelCount: $0) })
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(path: input, options: demuxerOptions)
            let decoder = try demuxer.audioTrack().decodeAudio()
            let progress = ProgressLine(total: demuxer.info.duration)
            // Decoding on one core, conversion and writing on the other (600 s to 48 kHz: 459 → 335 ms).
            let summary = try await decoder.prefetched().resampled(to: request).writeWAV(to: output, overwrite: overwrite,
                                                                             progress: progress.update)
            progress.finish(at: summary.duration)
            reportTruncations(demuxer.truncations, input: input)
            reportSkippedPackets(decoder.statistics)
        }
    }
}

/// One warning line when the decoder skipped damaged packets (the run still succeeds).
func reportSkippedPackets(_ statistics: AudioDecoderStatistics) {
    guard statistics.skippedPackets > 0 else { return }
    let plural = statistics.skippedPackets == 1 ? "" : "s"
    printWarning("skipped \(statistics.skippedPackets) damaged packet\(plural) (first \(statistics.firstSkip ?? "unknown"))")
}
