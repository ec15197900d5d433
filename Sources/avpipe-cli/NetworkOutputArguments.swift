import ArgumentParser
import AVPipeline

/// What a network output (`rtmp://`, `rtmps://`, `srt://`, an HLS upload to `http(s)://…/NAME.m3u8`)
/// takes: real-time pacing, reconnection and a local copy.
struct NetworkOutputArguments: ParsableArguments {
    @Flag(help: "rtmp:// and srt:// outputs: push as fast as the server takes it instead of in real time (the default for a stream).")
    var noRealtime = false

    @Option(help: ArgumentHelp("rtmp:// and srt:// outputs: how many times a broken connection is made again (with a new header, from the next keyframe) before the run fails with exit 73; 0: fail at once.", valueName: "n"))
    var reconnect = 3

    @Option(help: ArgumentHelp("Network outputs: also write every packet into this local file (fragmented .mp4, .mov, .mkv or .ts), completed to the end even when the network fails.", valueName: "file"))
    var keep: String?

    /// Whether `output` is a network address (the library's `OutputLocation` decides).
    static func isNetwork(_ output: String) -> Bool { OutputLocation(output).isURL }

    /// Whether `output` is a live stream (RTMP, SRT), which is paced to real time unless told otherwise.
    static func isStream(_ output: String) -> Bool { OutputLocation(output).isLiveStream }

    /// Refuses the options where `output` is a file, and a copy that would be the output.
    func check(output: String, realtime: Bool = false) throws {
        if !Self.isNetwork(output) {
            if noRealtime { throw ValidationError("--no-realtime is for rtmp:// and srt:// outputs ('\(output)' is a file)") }
            if keep != nil { throw ValidationError("--keep is for network outputs ('\(output)' is a file)") }
            if reconnect != 3 { throw ValidationError("--reconnect is for rtmp:// and srt:// outputs ('\(output)' is a file)") }
        }
        if noRealtime && realtime { throw ValidationError("--realtime and --no-realtime exclude each other") }
        guard (0...100).contains(reconnect) else { throw ValidationError("--reconnect must be between 0 and 100 (got \(reconnect))") }
        if let keep {
            guard let container = Container(path: keep), [.mp4, .mov, .mkv, .ts].contains(container), !Self.isNetwork(keep) else {
                throw ValidationError("--keep names a local .mp4, .mov, .mkv or .ts file (got '\(keep)')")
            }
        }
    }

    /// Whether the muxer paces `output`: a stream unless --no-realtime, anything with --realtime.
    func realtime(for output: String, asked: Bool) -> Bool {
        asked || (Muxer.Options.realtimeByDefault(for: OutputLocation(output)) && !noRealtime)
    }

    /// The library's options, each connection event printed as a notice; `timeout` (the command's
    /// `--timeout`, in seconds) bounds every connect and write to the server, and `certificates`
    /// (`--ca-file`, `--insecure`) says how a TLS server's certificate is checked.
    func options(for output: String, timeout: Double = 10, certificates: CertificateCheck) -> NetworkOptions {
        NetworkOptions(timeout: .microseconds(Int64((timeout * 1_000_000).rounded())), reconnects: reconnect, localCopy: keep,
                       certificates: certificates, events: { event in printNotice("\(output): \(event)") })
    }
}
