import AVPipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One self-rewriting status line on stderr (percent, position, pictures per second when making video, speed × real time), shown only when
/// stderr is a terminal and redrawn at most ten times a second.
final class ProgressLine {
    /// Whether a status line is on screen without its newline: an error or "interrupted" message
    /// must then start on a fresh line instead of being glued to the half-drawn status.
    private static let lineOpen = Atomic<Bool>(false)

    /// Ends a status line left open (a run that failed or was interrupted mid-progress).
    static func closeOpenLine() {
        if lineOpen.exchange(false, ordering: .acquiringAndReleasing) { emit("\n") }
    }

    private let total: MediaTime?
    /// Pictures a second of media holds, when video is being made: the line then shows pictures per second.
    private let pictureRate: Double?
    let enabled: Bool
    let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    var lastDraw: ContinuousClock.Instant
    var drew = false

    init(total: MediaTime?, pictureRate: Double? = nil, enabled: Bool = isTerminal(STDERR_FILENO)) {
        self.total = total
        self.pictureRate = pictureRate
        self.enabled = enabled
        start = clock.now
        lastDraw = start
    }

    /// `update`, or nil when the line is not shown: the pipeline then makes no call per packet.
    var updates: ((MediaTime) -> Void)? { enabled ? update : nil }

    func update(_ position: MediaTime) { update(position, played: position) }

    /// `played`: the media time processed since the start, where that is not `position` (a player
    /// that jumped); the speed is measured by it.
    func update(_ position: MediaTime, played: MediaTime) {
        guard enabled, clock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = clock.now
        draw(position, played: played)
    }

    /// Ends the line (after a last redraw) so later output starts on a fresh line.
    func finish(at position: MediaTime?, played: MediaTime? = nil) {
        guard enabled else { return }
        if let position { draw(position, played: played ?? position) }
        if drew { Self.closeOpenLine() }
    }

    private func draw(_ position: MediaTime, played: MediaTime) {
        var text = "\r\u{1B}[K"
        if let total, total.seconds > 0 {
            let percent = min(100, Int(position.seconds / total.seconds * 100))
            text += "\(percent)%  \(position) / \(total)"
        } else {
            text += "\(position)"
        }
        let elapsed = (clock.now - start).secondsDouble
        if elapsed > 0.05 {
            if let pictureRate { text += "  \(Int((played.seconds * pictureRate / elapsed).rounded())) fps" }
            text += "  \(String(oneDecimal: played.seconds / elapsed))× real time"
        }
        Self.emit(text)
        drew = true
        Self.lineOpen.store(true, ordering: .releasing)
    }

    /// Draws `text` as the status line (replacing what is there): for status lines of other kinds.
    static func show(_ text: String) {
        emit("\r\u{1B}[K" + text)
        lineOpen.store(true, ordering: .releasing)
    }

    private static func emit(_ text: String) { writeAll(STDERR_FILENO, text) }
}

extension Duration {
    var secondsDouble: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

extension String {
    init(oneDecimal value: Double) {
        let tenths = Int64((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension ProgressLine {
    /// Draws a session's progress as the line does its own (at most ten times a second).
    func update(_ progress: TranscodeProgress) {
        guard enabled, clock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = clock.now
        draw(progress)
    }

    /// Ends the line after drawing `progress`, the session's last.
    func finish(_ progress: TranscodeProgress?) {
        guard enabled else { return }
        if let progress { draw(progress) }
        if drew { Self.closeOpenLine() }
    }

    private func draw(_ progress: TranscodeProgress) {
        var text = ""
        if let total = progress.duration, total.seconds > 0 {
            text += "\(min(100, Int(progress.time.seconds / total.seconds * 100)))%  \(progress.time) / \(total)"
        } else {
            text += "\(progress.time)"
        }
        if let speed = progress.speed {
            if let pictures = progress.picturesPerSecond { text += "  \(Int(pictures.rounded())) fps" }
            text += "  \(String(oneDecimal: speed))× real time"
        }
        Self.show(text)
        drew = true
    }
}
