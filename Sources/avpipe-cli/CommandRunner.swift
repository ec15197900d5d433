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
    ///
    /// With `graceful`, the first signal runs its installed action instead (a recording stops its
    /// device and completes its file, then the run ends as interrupted); a second one cancels.
    static func run(logging: LoggingOptions, graceful: GracefulStop? = nil,
                    _ body: @escaping @Sendable () async throws -> Void) async throws {
        FFmpegLog.setLevel(logging.verbose ? .info : .quiet)
        // A file-size limit (ulimit -f) must surface as a write error, not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        let received = Mutex<Int32>(0)
        let task = Task { try await body() }
        StopSignals.watch { number in
            let first = received.withLock { (value: inout Int32) -> Bool in
                defer { if value == 0 { value = number } }
                return value == 0
            }
            if first, let graceful, graceful.trigger() {
                hardStop(after: gracefulStopGrace, signal: number)
                return
            }
            task.cancel()
            hardStop(after: stopGrace, signal: number)
        }
        // However the run ended: reconnections said, the exit claimed, and a run a signal
        // interrupted ends as such (128 + the signal), whatever it threw.
        func settle() throws {
            reportReconnections()
            ExitGate.claimOrWait()
            let signalNumber = received.withLock { $0 }
            if signalNumber != 0 {
                printError("interrupted")
                throw ExitCode(128 + signalNumber)
            }
        }
        do {
            try await task.value
            try settle()
        } catch let code as ExitCode {
            throw code
        } catch {
            try settle()
            throw report(error)
        }
    }

    /// Says that a network input's connection dropped and was resumed (HTTP reconnect), if it did:
    /// the media is whole, but the user should know the link is unreliable.
    private static func reportReconnections() {
        let count = FFmpegLog.reconnections
        guard count > 0 else { return }
        printNotice("the network connection dropped and was reopened where it stopped \(count == 1 ? "once" : "\(count) times") (HTTP reconnect)")
    }

    /// How long a cancelled pipeline may take to stop by itself (the goal is 0.5 s in all).
    static let stopGrace: useconds_t = 400_000
    /// How long a gracefully stopped run may take to complete its output (an encoder's last
    /// frames, a file's index).
    static let gracefulStopGrace: useconds_t = 3_000_000

    /// Called on the signal-watching thread after the pipeline was cancelled. Cancellation cannot
    /// reach a read blocked on a slow input (a pipe nobody writes to, a stalled disk); if the run
    /// has not ended within `grace`, the process ends here, like the normal path would: temporary
    /// outputs removed, "interrupted", exit 128 + signal.
    static func hardStop(after grace: useconds_t, signal number: Int32) {
        usleep(grace)
        guard ExitGate.claim() else { return }  // the run ended meanwhile and reports itself
        TemporaryOutputs.removeAll()
        printError("interrupted")
        _exit(128 + number)
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

/// The action that ends a run gracefully on the first SIGINT/SIGTERM, installed by the run once it
/// has something to stop (before that, the signal cancels as usual).
final class GracefulStop: Sendable {
    private let action = Mutex<(@Sendable () -> Void)?>(nil)

    func install(_ stop: @escaping @Sendable () -> Void) { action.withLock { $0 = stop } }

    /// Runs the action; false when none is installed yet.
    func trigger() -> Bool {
        guard let stop = action.withLock({ $0 }) else { return false }
        stop()
        return true
    }
}

/// Lets exactly one of the two ways a run ends — its own completion or the signal watchdog — end
/// the process, so the user sees one outcome and one message.
enum ExitGate {
    private static let claimed = Atomic<Bool>(false)

    /// Claims the end of the process; false when the other side already has.
    static func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// The normal path's claim: if the watchdog is already ending the process, wait for it.
    static func claimOrWait() {
        if !claim() { while true { pause() } }
    }
}


func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
