import ArgumentParser
import AVPipeline

/// What `mux` and `remux` share: the container choice and its layout.
struct MuxLayoutOptions: ParsableArguments {
    @Flag(help: "Write a fragmented MP4 that stays playable up to its last completed fragment if the process dies.")
    var fragmented = false

    @Flag(help: "Leave the index (moov) after the media data instead of moving it to the front.")
    var noFaststart = false

    @Flag(help: "Write no faster than real time, like a live recording.")
    var realtime = false

    @Option(help: ArgumentHelp("Container, over the output's extension: mp4, m4a, mov, mkv, webm, ts (the default for '-', standard output) or hls.",
                               valueName: "name"))
    var format: FormatArgument<MuxedContainers>?

    @OptionGroup var hls: HLSArguments
    @OptionGroup var network: NetworkOutputArguments

    /// The muxer's options for `output`: a stream to the network is paced to real time unless
    /// --no-realtime, and waits for its server at most the command's --timeout, checking a TLS
    /// server's certificate as its --ca-file / --insecure say.
    func options(overwrite: Bool, output: String, input: InputOptions) -> Muxer.Options {
        var options = Muxer.Options()
        options.faststart = !noFaststart
        options.fragmented = fragmented
        options.overwrite = overwrite
        options.realtime = network.realtime(for: output, asked: realtime)
        options.hls = hls.options
        options.network = network.options(for: output, timeout: input.timeout, certificates: input.certificates.check)
        return options
    }

    /// The container `output` is written in: `--format`, else its extension; standard output
    /// streams MPEG-TS unless told otherwise.
    func container(for output: String) -> Container? {
        if let format { return format.container }
        return output == OutputPaths.standardOutput ? .ts : Container(path: output).flatMap { $0.isMultiTrack ? $0 : nil }
    }

    func validateOutput(_ output: String) throws {
        try network.check(output: output, realtime: realtime)
        guard container(for: output) != nil else {
            let ext = OutputPaths.fileExtension(output)
            throw ValidationError("cannot tell the container from \(ext.isEmpty ? "'\(output)' (no extension)" : "extension '.\(ext)'"): use \(Container.extensionsText), or --format")
        }
        if StreamOutput.isStream(output), let container = container(for: output), !container.streams, !fragmented, container != .hls {
            let into = output == OutputPaths.standardOutput ? "standard output" : "a pipe or device"
            throw ValidationError("an \(container.rawValue.uppercased()) written to \(into) must be --fragmented (its index cannot be written back); or use --format ts or mkv")
        }
    }
}

/// How an `.m3u8` output is cut and published (HLS).
struct HLSArguments: ParsableArguments {
    @Option(help: ArgumentHelp("HLS: the segment length aimed at, in seconds (segments start at keyframes).", valueName: "seconds"))
    var segment: Double = 6

    @Flag(help: "HLS: CMAF/fragmented MP4 segments (NAME-init.mp4 + NAMEn.m4s) instead of MPEG-TS; AV1 and VP9 need them.")
    var fmp4 = false

    @Flag(help: "HLS: a live stream, published segment by segment, the playlist keeping the last --window segments.")
    var live = false

    @Option(help: ArgumentHelp("HLS --live: how many segments the playlist keeps (older ones are deleted).", valueName: "count"))
    var window = 5

    var options: HLSOptions {
        // Microseconds: exact for any duration typed to the microsecond; 0 or absurd values are
        // refused by HLSOptions with the number as typed.
        let micros = segment.isFinite ? Int64(max(-1, min(segment, 1e12)) * 1_000_000) : -1
        return HLSOptions(segmentDuration: MediaTime(value: micros, timeBase: Rational(1, 1_000_000)),
                          segments: fmp4 ? .fmp4 : .mpegts, live: live, window: window)
    }
}

/// A frame rate typed as `25`, `29.97` or `30000/1001`.
struct FrameRateArgument: ExpressibleByArgument {
    let rate: Rational

    init?(argument: String) {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let num = Int32(parts[0]), let den = Int32(parts[1]), num > 0, den > 0 {
            rate = Rational(num, den)
        } else if parts.count == 1, let value = Double(argument), value > 0, value <= 1000 {
            // Decimal rates: 29.97 → 2997/100 (exact to the hundredth, as rates are written).
            rate = Rational(Int32((value * 100).rounded()), 100)
        } else {
            return nil
        }
    }
}
