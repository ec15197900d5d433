import Foundation

/// Watches a few pixels of a window 200 times a second (ffmpeg's x11grab) and notes, in wall-clock
/// time, when they turn bright: the moments a flashing picture was actually on screen.
public final class FlashRecorder: @unchecked Sendable {
    private let capture: RunningProcess
    private let samplesPath: String

    /// Starts watching an 8×8 square at (`x`, `y`) of the screen for `seconds`.
    public init(server: XvfbServer, x: Int, y: Int, seconds: Double, folder: TemporaryDirectory) throws {
        samplesPath = folder.file("flashes-\(UUID().uuidString).txt")
        capture = try RunningProcess("/usr/bin/ffmpeg", [
            "-hide_banner", "-f", "x11grab", "-framerate", "200", "-video_size", "8x8", "-i", "\(server.display)+\(x),\(y)",
            "-t", "\(seconds)", "-vf", "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=\(samplesPath)", "-f", "null", "-",
        ], environment: server.environment, acceptsInput: true)
    }

    /// Ends the capture before its `seconds` are up: q on ffmpeg's standard input. (A signal would
    /// not do: children of Foundation's `Process` inherit a mask that blocks SIGINT and SIGTERM.)
    public func stop() {
        capture.send("q")
    }

    /// Waits for the capture to end; the wall-clock times at which the square turned bright.
    public func onsets(threshold: Double = 128) throws -> [Double] {
        guard let result = capture.finish(within: 60), result.status == 0 else { throw TestFailure("the screen capture failed") }
        // The grab's timestamps count from its first frame, whose wall-clock time ffmpeg prints as "start:".
        guard let range = result.stderrText.range(of: "start: "),
              let start = Double(result.stderrText[range.upperBound...].prefix { $0 != "," }) else {
            throw TestFailure("the screen capture printed no start time: \(result.stderrText)")
        }
        var onsets: [Double] = []
        var time: Double?
        var wasBright = true  // the first bright frame seen must follow a dark one
        for line in try String(contentsOfFile: samplesPath, encoding: .utf8).split(separator: "\n") {
            if let range = line.range(of: "pts_time:") {
                time = Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("lavfi.signalstats.YAVG="), let value = Double(line.dropFirst(23)), let time {
                let bright = value > threshold
                if bright && !wasBright { onsets.append(start + time) }
                wasBright = bright
            }
        }
        return onsets
    }
}
