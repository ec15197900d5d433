import ArgumentParser
import AVPipeline

/// `avpipe hls`: a media file's audio and video as an HLS stream, without re-encoding.
struct HLS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hls",
        abstract: "Package a media file as an HLS stream: a playlist and its segments (no re-encoding).",
        discussion: """
        The segments are written beside the playlist (NAME0.ts…, or NAME-init.mp4 + NAME0.m4s… with \
        --fmp4), cut at keyframes near every --segment seconds. A VOD stream appears when complete \
        (a failed run leaves nothing); a --live one is published segment by segment, keeping the last \
        --window segments; one written in real time (--realtime, a live input) is published as it \
        goes, keeping every segment. Audio and video are packaged (AV1 and VP9 in --fmp4 segments only); \
        what is left out (subtitles, a rotation TS segments cannot carry) is named in a notice.
        Examples: avpipe hls in.mp4 --out site/index.m3u8
                  avpipe hls in.mp4 --out site/index.m3u8 --segment 4 --fmp4
                  avpipe hls in.mp4 --out live/index.m3u8 --live --window 5 --realtime
        """
    )

    @Argument(help: ArgumentHelp("Media file to package.", valueName: "input"))
    var input: String

    @Option(name: .customLong("out"), help: ArgumentHelp("The playlist: NAME.m3u8 (its folder must exist), or http(s)://host/path/NAME.m3u8 to upload it and its segments with PUT.", valueName: "playlist"))
    var output: String

    @Option(help: ArgumentHelp("Which audio track: N (from 0) or all (the default).", valueName: "N|all"))
    var audioTrack: TrackChoiceArgument?

    @Option(help: ArgumentHelp("Which video track: N (from 0) or all (the default).", valueName: "N|all"))
    var videoTrack: TrackChoiceArgument?

    @Flag(help: "Package only the audio (an audio-only stream).")
    var audioOnly = false

    @Flag(help: "Write no faster than real time (a live stream from a file).")
    var realtime = false

    @OptionGroup var hls: HLSArguments
    @OptionGroup var network: NetworkOutputArguments
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard Container(path: output) == .hls else { throw ValidationError("--out names the playlist: NAME.m3u8 (got '\(output)')") }
        try network.check(output: output, realtime: realtime)
        if audioOnly && videoTrack != nil { throw ValidationError("--audio-only packages no video: drop --video-track") }
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    func run() async throws {
        var options = Muxer.Options()
        (options.overwrite, options.realtime, options.hls) = (outputOptions.overwrite, realtime, hls.options)
        options.network = network.options(for: output, timeout: inputOptions.timeout, certificates: inputOptions.certificates.check)
        var session = RemuxSession(input: input, output: output, container: .hls)
        session.audio = audioTrack?.choice ?? .all
        session.video = audioOnly ? .none : videoTrack?.choice ?? .all
        session.subtitles = !audioOnly
        (session.muxerOptions, session.demuxerOptions) = (options, inputOptions.demuxerOptions)
        try await session.runPrintingEvents(logging: logging)
    }
}
