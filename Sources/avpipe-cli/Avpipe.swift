import ArgumentParser

@main
struct Avpipe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avpipe",
        abstract: "Capture, encode, mux, demux, decode and play audio/video through a typed FFmpeg pipeline.",
        discussion: """
        Exit codes: 0 success, 64 usage error, 66 bad or unreadable input, 69 unsupported codec or \
        format or no audio device, 70 internal FFmpeg failure, 73 output cannot be written, 130 interrupted (SIGINT), \
        143 terminated (SIGTERM).
        """,
        version: "0.1.0",
        subcommands: [Encode.self, Decode.self, Play.self]
    )
}
