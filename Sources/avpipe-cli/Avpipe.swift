import ArgumentParser
import AVPipeline
import CAllocatorTuning
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct Avpipe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avpipe",
        abstract: "Capture, encode, mux, demux, decode and play audio/video through a typed FFmpeg pipeline.",
        discussion: """
        Exit codes: 0 success, 64 usage error, 66 bad or unreadable input, 69 unsupported codec or \
        format or no audio device, 70 internal FFmpeg failure, 73 output cannot be written, 130 interrupted (SIGINT), \
        143 terminated (SIGTERM).
        """,
        version: "0.1.0",
        subcommands: [Encode.self, Record.self, Decode.self, Play.self, Demux.self, Probe.self, Mux.self, Remux.self, HLS.self, Frame.self]
    )

    /// Parses and runs like swift-argument-parser's own `main`, but reports every error — usage
    /// errors included — as one `avpipe: error: …` line with its documented exit code.
    ///
    /// `main` is synchronous on purpose: an `async` main parks the main thread in `dispatch_main()`,
    /// which valgrind cannot run; instead the async subcommand runs on the cooperative pool while
    /// the main thread waits for it.
    static func main() {
        tuneAllocator()
        // SVT-AV1 logs its whole configuration to stderr itself, outside FFmpeg's (quiet) log: warnings
        // and errors only, unless the user's environment says otherwise. Set before any thread starts.
        setenv("SVT_LOG", "2", 0)
        // The secrets of every URL given are hidden in whatever is printed, errors about parsing
        // included (`Redaction`).
        for argument in CommandLine.arguments.dropFirst() where argument.contains("://") {
            Redaction.registerSecrets(of: argument)
        }
        do {
            var command = try parseAsRoot(try FFmpegHabits.arguments(Array(CommandLine.arguments.dropFirst())))
            tuneAllocator(for: command)
            if let asyncCommand = command as? any AsyncParsableCommand {
                try runBlocking(asyncCommand)
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

/// What ffmpeg users type, made to work: `-i FILE` names the input of every subcommand (encode
/// takes it as `--in`; the others take their input as a bare name, so the `-i` is dropped), and
/// `avpipe help NAME` with an unknown NAME is a usage error rather than the general help.
enum FFmpegHabits {
    static let bareInputCommands: Set<String> = ["decode", "play", "demux", "probe", "remux", "hls", "frame"]

    static func arguments(_ arguments: [String]) throws -> [String] {
        let arguments = try joiningNegativeValues(arguments)
        if arguments.count >= 2, arguments[0] == "help" {
            let known = Avpipe.configuration.subcommands.map { $0._commandName }
            guard known.contains(arguments[1]) else { throw ValidationError("unknown subcommand '\(arguments[1])'") }
        }
        guard let command = arguments.first, bareInputCommands.contains(command),
              let flag = arguments.firstIndex(of: "-i"), flag + 1 < arguments.count else { return arguments }
        var rewritten = arguments
        rewritten.remove(at: flag)
        return rewritten
    }
}

extension FFmpegHabits {
    /// Options whose type cannot even hold a negative value, with the values they take: a negative
    /// one is refused here, naming the range (the parser would only say "invalid value").
    static let nonNegativeOptions: [String: String] = [
        "--start": "a time of 0 or more (seconds or hh:mm:ss.xxx)", "--duration": "a time of 0 or more (seconds or hh:mm:ss.xxx)",
        "--at": "a time of 0 or more (seconds or hh:mm:ss.xxx)", "--every": "a time above 0 (seconds or hh:mm:ss.xxx)",
        "--bitrate": "a bit rate above 0 (bits per second, or with k/M: 96k)",
        "--audio-track": "a track number from 0 (remux, mux: or all)", "--video-track": "a track number from 0 (remux, mux: or all)",
    ]

    /// swift-argument-parser reads `--volume -1` as two options and reports "Missing value for
    /// '--volume'". Joined as `--volume=-1`, the value reaches the option's own range check (exit
    /// 64 naming the range); an option whose type holds no negative value is refused here.
    static func joiningNegativeValues(_ arguments: [String]) throws -> [String] {
        var joined: [String] = []
        var index = 0
        while index < arguments.count {
            var argument = arguments[index]
            if argument.hasPrefix("--"), !argument.contains("="), index + 1 < arguments.count, isNegativeNumber(arguments[index + 1]) {
                argument += "=" + arguments[index + 1]
                index += 1
            }
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--"),
               let range = nonNegativeOptions[String(argument[..<equals])], isNegativeNumber(String(argument[argument.index(after: equals)...])) {
                throw ValidationError("\(argument[..<equals]) takes \(range) (got \(argument[argument.index(after: equals)...]))")
            }
            joined.append(argument)
            index += 1
        }
        return joined
    }

    /// `-5`, `-0.5`, `-.5`, `-1:30`: never an option name (none starts with a digit).
    private static func isNegativeNumber(_ text: String) -> Bool {
        guard text.hasPrefix("-"), let first = text.dropFirst().first else { return false }
        return first.isNumber || (first == "." && text.dropFirst(2).first?.isNumber == true)
    }
}

/// glibc raises its mmap threshold each time it frees a large mapped block, after which growing
/// arrays (a demuxer's sample index) land in the heap and leave holes behind: RSS grew 3.3 MiB
/// from a 60 s to a 600 s MP4 for the same work. A fixed 256 KiB threshold keeps such blocks
/// mapped and returned on free (+0.5 MiB), while packets and frames stay on the heap. The
/// application tunes its allocator; the library does not.
private func tuneAllocator() {
    avp_fix_mmap_threshold()
}

/// A recording with pictures allocates and frees a screen-sized buffer 30 times a second: under
/// the fixed threshold each is a fresh mapping faulted in page by page, so the thresholds are
/// raised for it (`avp_keep_picture_buffers`). Once, here: the program tunes its allocator, never
/// the library's recording session.
private func tuneAllocator(for command: any ParsableCommand) {
    if let record = command as? Record, !record.listDevices, record.pictures.recordsPictures {
        avp_keep_picture_buffers()
    }
}

/// The C library's `exit`, which `ParsableCommand.exit(withError:)` hides inside the command type.
private func terminate(_ status: Int32) -> Never { exit(status) }

/// Runs an async subcommand to completion from synchronous code.
private func runBlocking(_ command: sending any AsyncParsableCommand) throws {
    let outcome = Mutex<Result<Void, any Error>>(.success(()))
    let finished = DispatchSemaphore(value: 0)
    Task {
        var command = command
        do { try await command.run() } catch { outcome.withLock { $0 = .failure(error) } }
        finished.signal()
    }
    finished.wait()
    try outcome.withLock { $0 }.get()
}
