import ArgumentParser
import AVPipeline

/// `avpipe encode`: PCM WAV → AAC-LC in ADTS (.aac) or MP4/M4A.
struct Encode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode a PCM WAV file to AAC-LC (.aac ADTS, .m4a or .mp4).",
        discussion: "Example: avpipe encode --in pcm.wav --out test.aac --bitrate 96000"
    )

    enum Container: String, ExpressibleByArgument, CaseIterable {
        case adts, m4a, mp4
    }

    @Option(name: .customLong("in"), help: ArgumentHelp("PCM WAV file to encode.", valueName: "wav"))
    var input: String

    @Option(name: .customLong("out"), help: ArgumentHelp("Output file: .aac (ADTS), .m4a or .mp4.", valueName: "file"))
    var output: String

    @Option(help: "Target bit rate in bits per second (default: 96000, or the most AAC-LC carries for small streams).")
    var bitrate: Int?

    @Option(help: "Container, when the output's extension does not say it (adts, m4a, mp4).")
    var format: Container?

    @Option(help: "Sample frames per captured chunk.")
    var chunkFrames: Int = 1024

    @Flag(help: "Read the input no faster than real time, like a live microphone.")
    var realtime = false

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    var container: Container? {
        if let format { return format }
        switch OutputPaths.fileExtension(output) {
        case "aac", "adts": return .adts
        case "m4a": return .m4a
        case "mp4": return .mp4
        default: return nil
        }
    }

    func validate() throws {
        guard container != nil else {
            let ext = OutputPaths.fileExtension(output)
            throw ValidationError("cannot tell the container from \(ext.isEmpty ? "'\(output)' (no extension)" : "extension '.\(ext)'"): use .aac, .m4a or .mp4, or --format")
        }
        if let bitrate, bitrate <= 0 { throw ValidationError("--bitrate must be positive (got \(bitrate))") }
        guard chunkFrames > 0 else { throw ValidationError("--chunk-frames must be positive (got \(chunkFrames))") }
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    func run() async throws {
        let (input, output, container, bitrate, overwrite) = (input, output, container!, bitrate, outputOptions.overwrite)
        let captureOptions = FileCapture.Options(chunkFrames: chunkFrames, realtime: realtime,
                                                 inputPolicy: inputOptions.policy, strict: inputOptions.strict)
        try await CommandRunner.run(logging: logging) {
            let capture = try FileCapture(path: input, options: captureOptions)
            let encoder = try capture.encodeAAC(.init(bitrate: bitrate))
            let progress = ProgressLine(total: capture.duration)
            let summary: WriteSummary
            switch container {
            case .adts:
                summary = try await ADTSWriter(upstream: encoder, path: output, overwrite: overwrite).run(progress: progress.update)
            case .m4a, .mp4:
                summary = try await encoder.writeMP4(to: output, brand: container == .m4a ? .m4a : .mp4,
                                                     overwrite: overwrite, progress: progress.update)
            }
            progress.finish(at: summary.duration)
            reportTruncations(capture.truncation.map { [$0] } ?? [], input: input)
        }
    }
}
