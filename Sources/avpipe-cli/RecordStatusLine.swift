import AVPipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live line of a recording on a terminal: elapsed capture time, the peak level since the
/// last redraw in dBFS, and the overruns so far. Redrawn four times a second; nothing when stderr
/// is not a terminal.
struct RecordStatusLine: Sendable {
    let control: DeviceCapture.Control
    let sampleRate: Int
    var enabled = isTerminal(STDERR_FILENO)

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
        let statistics = control.statistics
        let elapsed = Double(statistics.deliveredFrames + statistics.droppedFrames) / Double(sampleRate)
        let peak = control.takePeak()
        let level = peak > 0 ? "\(String(oneDecimal: 20 * log10(Double(peak)))) dBFS" : "-inf dBFS"
        ProgressLine.show("● recording \(MediaTime(seconds: elapsed, timeBase: Rational(1, 1000)))  peak \(level)  overruns \(statistics.overrunCount)")
    }
}
