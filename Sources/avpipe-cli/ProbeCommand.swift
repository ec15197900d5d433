import ArgumentParser
import AVPipeline

/// `avpipe probe`: what a media file holds, for people or (with `--json`) for programs.
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the container, duration and tracks of a media file.",
        discussion: """
        Video sizes are display sizes: a track rotated by 90° or 270° reports width and height \
        swapped (coded_width/coded_height keep the stored size). rotation is clockwise in degrees.
        --json keys: format, format_long_name, duration (seconds), bitrate, tracks[] with index, \
        kind, codec, codec_tag, profile, sample_rate, channels, channel_layout, width, height, \
        coded_width, coded_height, rotation, mirrored, frame_rate, bitrate, duration, language; \
        tags (the file's descriptive tags: title, artist, album, track, disc, date, genre, comment…). \
        Unknown or inapplicable values are null.
        """
    )

    @Argument(help: ArgumentHelp("Media file to describe.", valueName: "input"))
    var input: String

    @Flag(help: "Print JSON with stable keys instead of text.")
    var json = false

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (input, json, strict) = (input, json, inputOptions.strict)
        let demuxerOptions = inputOptions.demuxerOptions
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
            let report = MediaReport(demuxer)
            // Under --strict a cut file is an error like any other (nothing on standard output),
            // whose message says what the file holds.
            if strict, let summary = report.incomplete {
                throw AVPipelineError.invalidData(path: input, position: nil, reason: "truncated: \(summary)")
            }
            printOut(json ? report.json + "\n" : report.text)
            if let summary = report.incomplete { printWarning("'\(input)' is incomplete (\(summary)); --strict refuses such files") }
        }
    }
}
