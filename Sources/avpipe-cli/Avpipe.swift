import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct Avpipe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avpipe",
        abstract: "Capture, encode, mux, demux, decode and play audio/video through a typed FFmpeg pipeline.",
        discussion: """
        Exit codes: 0 success, 64 usage error, 66 bad or unreadable input, 69 unsupported codec or \
        format, 70 internal FFmpeg failure, 73 output cannot be written, 130 interrupted (SIGINT), \
        143 terminated (SIGTERM).
        """,
        version: "0.1.0",
        subcommands: [Encode.self]
    )

    /// Parses and runs like swift-argument-parser's own `main`, but reports every error — usage
    /// errors included — as one `avpipe: error: …` line with its documented exit code.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            terminate(code.rawValue)  // already reported by the command
        } catch {
            let code = exitCode(for: error)
            guard code != .success else { exit(withError: error) }  // --help, --version
            printError(message(for: error) + " (see 'avpipe --help')")
            terminate(code.rawValue)
        }
    }
}

/// The C library's `exit`, which `ParsableCommand.exit(withError:)` hides inside the command type.
private func terminate(_ status: Int32) -> Never { exit(status) }
