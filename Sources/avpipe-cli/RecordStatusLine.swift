import AVPipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live line of a recording on a terminal: elapsed capture time, the peak level since the
/// last redraw in dBFS, and the overruns so far; with pictures, the pictures per second and those
/// dropped. Redrawn four times a second; nothing when stderr is not a terminal.
final class RecordStatusLine: Sendable {
    let control: DeviceCapture.Control?
    let sampleRate: Int
    let pictures: VideoCapture.Control?
    let enabled = isTerminal(STDERR_FILENO)
    private let started = ContinuousClock.now
    /// Pictures delivered at the previous redraw, and when.
    private let lastCount = Mutex<(Int, ContinuousClock.Instant)>((0, ContinuousClock.now))

    init(control: DeviceCapture.Control?, sampleRate: Int, pictures: VideoCapture.Control? = nil) {
        self.control = control
        self.sampleRate = sampleRate
        self.pictures = pictures
    }

    func keepDrawing() async {
        guard enabled else { return }
        while !Task.isCancelled {
            draw()
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    func finish() {
        guard enabled else { return }
        draw()
        ProgressLine.closeOpenLine()
    }

    private func draw() {
        var line = "● recording"
        if let control {
            let statistics = control.statistics
            let elapsed = Double(statistics.deliveredFrames + statistics.droppedFrames) / Double(sampleRate)
            let peak = control.takePeak()
            let level = peak > 0 ? "\(String(oneDecimal: 20 * log10(Double(peak)))) dBFS" : "-inf dBFS"
            line += " \(MediaTime(seconds: elapsed, timeBase: Rational(1, 1000)))  peak \(level)  overruns \(statistics.overrunCount)"
        } else {
            let elapsed = ContinuousClock.now - started
            line += " \(MediaTime(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, timeBase: Rational(1, 1000)))"
        }
        if let pictures {
            let statistics = pictures.statistics
            let now = ContinuousClock.now
            let rate = lastCount.withLock { last in
                defer { last = (statistics.delivered, now) }
                let span = now - last.1
                let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
                return seconds > 0 ? Double(statistics.delivered - last.0) / seconds : 0
            }
            line += "  \(Int(rate.rounded())) fps  dropped \(statistics.dropped)"
        }
        ProgressLine.show(line)
    }
}
