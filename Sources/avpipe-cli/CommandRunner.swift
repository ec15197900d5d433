import ArgumentParser
import AVPipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a subcommand's pipeline the way every subcommand should: FFmpeg quiet unless verbose,
/// SIGINT/SIGTERM cancel the pipeline (whose writers then delete their temporary files), and every
/// failure becomes one line on stderr plus a documented exit code — never a stack trace.
enum CommandRunner {
    static func run(logging: LoggingOptions, _ body: @escaping @Sendable () async throws -> Void) async throws {
        FFmpegLog.setLevel(logging.verbose ? .info : .quiet)
        // A file-size limit (ulimit -f) must surface as a write error, not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        let received = Mutex<Int32>(0)
        let task = Task { try await body() }
        StopSignals.watch { number in
            received.withLock { if $0 == 0 { $0 = number } }
            task.cancel()
        }
        do {
            try await task.value
        } catch {
            let signalNumber = received.withLock { $0 }
            if signalNumber != 0 {
                printError("interrupted")
                throw ExitCode(128 + signalNumber)
            }
            throw report(error)
        }
    }

    /// Prints `error` as one line and returns the exit code to leave with.
    static func report(_ error: any Error) -> ExitCode {
        guard let error = error as? AVPipelineError else {
            printError("\(error)")
            return ExitCode(70)
        }
        printError(error.description)
        return ExitCode(exitCode(for: error.category))
    }

    static func exitCode(for category: AVPipelineError.Category) -> Int32 {
        switch category {
        case .usage: 64
        case .input: 66
        case .unsupported: 69
        case .software: 70
        case .output: 73
        case .interrupted: 130
        }
    }
}

func printError(_ message: String) {
    ProgressLine.closeOpenLine()
    var line = "avpipe: error: \(message)\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
