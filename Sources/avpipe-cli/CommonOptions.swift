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
    @Flag(help: "Let a local input open the other local files it names (HLS/DASH playlists, ffconcat lists, image sequences). Off by default: such inputs are refused. It never opens the network: an input given as a URL is read over its own protocol.")
    var allowIndirection = false

    @Flag(help: "Refuse an input that ends before its index says (a partial download) instead of using everything intact with a warning.")
    var strict = false

    @Option(help: ArgumentHelp("How long a network input or output (http://, https://, rtmp://, srt://) may wait for the server, connecting, reading or writing, before it fails as timed out.", valueName: "seconds"))
    var timeout: Double = 10

    // Declared here rather than as a nested option group: each group costs every command's
    // argument parsing ~1.4M instructions of runtime conformance checks.
    @Option(help: CertificateChoice.caFileHelp)
    var caFile: String?

    @Flag(help: CertificateChoice.insecureHelp)
    var insecure = false

    var certificates: CertificateChoice { CertificateChoice(caFile: caFile, insecure: insecure) }

    func validate() throws {
        guard timeout > 0, timeout <= 86_400, timeout.isFinite else {
            throw ValidationError("--timeout must be more than 0 and at most 86400 seconds (got \(timeout))")
        }
        try certificates.validate()
    }

    var policy: InputPolicy {
        InputPolicy(allowIndirection: allowIndirection, networkTimeout: .microseconds(Int64((timeout * 1_000_000).rounded())),
                    certificates: certificates.check)
    }
    var demuxerOptions: Demuxer.Options { Demuxer.Options(inputPolicy: policy, strict: strict) }

    /// How an input argument is read: `scheme://…` is a network address, anything else a path.
    static func location(_ argument: String) -> InputLocation { InputLocation(argument: argument) }
}
