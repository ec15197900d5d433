import ArgumentParser
import AVPipeline

/// Options every subcommand that writes a file shares.
struct OutputOptions: ParsableArguments {
    @Flag(name: [.customShort("y"), .long], help: "Replace the output file if it exists.")
    var overwrite = false
}

struct LoggingOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Let FFmpeg print its own warnings and information.")
    var verbose = false
}

/// Options every subcommand that opens inputs shares: what an input may make avpipe open.
struct InputOptions: ParsableArguments {
    @Flag(help: "Let an input open the other local files it names (HLS/DASH playlists, ffconcat lists, image sequences). Off by default: such inputs are refused. Network addresses are never opened.")
    var allowIndirection = false

    @Flag(help: "Refuse an input that ends before its index says (a partial download) instead of using everything intact with a warning.")
    var strict = false

    var policy: InputPolicy { InputPolicy(allowIndirection: allowIndirection) }
    var demuxerOptions: Demuxer.Options { Demuxer.Options(inputPolicy: policy, strict: strict) }
}
