import AVPipeline
import Synchronization

/// Prints a `TranscodeSession`'s events as `encode` always has: notices and warnings as lines,
/// progress as the status line. Events come from the running task, one at a time.
final class TranscodeEventPrinter: Sendable {
    private struct State {
        let line = ProgressLine(total: nil)
        var last: TranscodeProgress?
    }

    private let state = Mutex(State())
    /// Whether the first progress event raises the allocator's thresholds (HLS: `SegmentAllocation`).
    private let raisesSegmentBuffers: Bool

    init(raisesSegmentBuffers: Bool) {
        self.raisesSegmentBuffers = raisesSegmentBuffers
    }

    /// Prints `event`.
    @Sendable func print(_ event: TranscodeEvent) {
        switch event {
        case .notice, .warning: printMessage(event)
        case .progress(let progress):
            state.withLock { state in
                if state.last == nil, raisesSegmentBuffers { SegmentAllocation.raise() }
                state.last = progress
                state.line.update(progress)
            }
        }
    }

    /// Ends the status line, after drawing the last progress.
    func finish() {
        state.withLock { $0.line.finish($0.last) }
    }
}

extension TranscodeEventPrinter {
    /// Runs a session under `CommandRunner`, giving it a printer's `print` for its events, and ends
    /// the status line once it is done.
    static func run(logging: LoggingOptions, raisesSegmentBuffers: Bool = false,
                    _ session: @escaping @Sendable (@escaping @Sendable (TranscodeEvent) -> Void) async throws -> Void) async throws {
        let printer = TranscodeEventPrinter(raisesSegmentBuffers: raisesSegmentBuffers)
        try await CommandRunner.run(logging: logging) {
            try await session(printer.print)
            printer.finish()
        }
    }
}

/// Prints a library's notice or warning (`TranscodeMessages`) as its line, when there is one.
func printMessage(_ event: TranscodeEvent?) {
    switch event {
    case .notice(let text): printNotice(text)
    case .warning(let text): printWarning(text)
    case .progress, nil: break
    }
}
