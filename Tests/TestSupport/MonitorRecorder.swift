import Foundation

/// Records what a PulseAudio sink plays (its monitor, through `parec`) and notes, for every chunk,
/// the wall-clock time it arrived. PulseAudio's own latency reports for monitors proved unreliable
/// as timestamps; arrival time (with a 5 ms capture latency asked for) is the independent clock
/// a listener's ear would be. Mono, 16-bit.
public final class MonitorRecorder: @unchecked Sendable {
    public let sampleRate: Int
    private let process = Process()
    private let lock = NSLock()
    private var samples: [Int16] = []
    private var arrivals: [(sampleCount: Int, time: Double)] = []
    private let done = DispatchGroup()

    public init(server: PulseAudioServer, sampleRate: Int = 44_100) throws {
        self.sampleRate = sampleRate
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["parec", "-d", "\(server.sinkName).monitor", "--rate=\(sampleRate)", "--channels=1",
                             "--format=s16le", "--latency-msec=5", "--raw"]
        process.environment = ProcessInfo.processInfo.environment.merging(server.environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = out.fileHandleForReading
        done.enter()
        Thread.detachNewThread { [done, self] in
            var carry: UInt8?
            while true {
                let chunk = handle.availableData
                let now = Date().timeIntervalSince1970
                if chunk.isEmpty { break }
                var bytes = [UInt8](chunk)
                if let first = carry { bytes.insert(first, at: 0); carry = nil }
                if bytes.count % 2 == 1 { carry = bytes.removeLast() }
                let samples = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
                lock.withLock {
                    self.samples += samples
                    arrivals.append((self.samples.count, now))
                }
            }
            done.leave()
        }
    }

    /// Ends the recording (SIGKILL, as `PulseAudioServer.stopRecording` explains).
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        done.wait()
    }

    /// Wall-clock times at which a tone starts after at least `gap` seconds of silence.
    public func onsets(threshold: Int16 = 3000, gap: Double = 0.5) -> [Double] {
        let (samples, arrivals) = lock.withLock { (self.samples, self.arrivals) }
        var result: [Double] = []
        var lastLoud = -Int.max / 2
        var arrivalIndex = 0
        for (index, sample) in samples.enumerated() where abs(Int(sample)) > Int(threshold) {
            if index - lastLoud > Int(gap * Double(sampleRate)) {
                while arrivalIndex < arrivals.count && arrivals[arrivalIndex].sampleCount <= index { arrivalIndex += 1 }
                guard arrivalIndex < arrivals.count else { break }
                // The chunk holding sample `index` arrived at `time`; the sample is that many samples older.
                let (count, time) = arrivals[arrivalIndex]
                result.append(time - Double(count - index) / Double(sampleRate))
            }
            lastLoud = index
        }
        return result
    }

    /// RMS (0…1) of what arrived between two wall-clock times.
    public func level(from start: Double, to end: Double) -> Double {
        let (samples, arrivals) = lock.withLock { (self.samples, self.arrivals) }
        var previous = 0
        var sum = 0.0, count = 0
        for (total, time) in arrivals {
            if time >= start && time <= end {
                for sample in samples[previous..<total] {
                    let value = Double(sample) / 32768
                    sum += value * value
                    count += 1
                }
            }
            previous = total
        }
        return count == 0 ? 0 : (sum / Double(count)).squareRoot()
    }
}
