import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live line of a recording on a terminal, drawn from the session's status events: time
/// recorded, the peak level since the previous status in dBFS, and the overruns so far; with
/// pictures, the pictures per second and those dropped. Nothing when stderr is not a terminal.
final class RecordStatusLine: Sendable {
    let enabled = isTerminal(STDERR_FILENO)

    /// Redraws the line with `status`.
    func show(_ status: RecordingStatus) {
        guard enabled else { return }
        var line = "● recording \(status.time)"
        if let peak = status.peak, let overruns = status.overruns {
            let level = peak > 0 ? "\(String(oneDecimal: 20 * log10(Double(peak)))) dBFS" : "-inf dBFS"
            line += "  peak \(level)  overruns \(overruns)"
        }
        if let rate = status.picturesPerSecond, let dropped = status.droppedPictures {
            line += "  \(Int(rate.rounded())) fps  dropped \(dropped)"
        }
        ProgressLine.show(line)
    }

    /// Ends the line (the session's last status is on it).
    func finish() {
        guard enabled else { return }
        ProgressLine.closeOpenLine()
    }
}
