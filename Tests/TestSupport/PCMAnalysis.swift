import Foundation

/// Signal checks for decoded or recorded audio: an oracle that does not trust our own code.
public enum PCMAnalysis {
    /// Interleaved signed 16-bit little-endian PCM → one array of samples (−1 … 1) per channel.
    public static func channels(s16le bytes: [UInt8], channelCount: Int) -> [[Float]] {
        let frames = bytes.count / (2 * channelCount)
        var result = Array(repeating: [Float](repeating: 0, count: frames), count: channelCount)
        for frame in 0..<frames {
            for channel in 0..<channelCount {
                let i = (frame * channelCount + channel) * 2
                result[channel][frame] = Float(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) / 32768
            }
        }
        return result
    }

    /// Index of the first and last sample whose magnitude exceeds `threshold`, nil if none does.
    public static func audibleRange(_ samples: [Float], threshold: Float = 0.02) -> ClosedRange<Int>? {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
              let last = samples.lastIndex(where: { abs($0) > threshold }) else { return nil }
        return first...last
    }

    /// The strongest frequency between 20 Hz and `maximum` (Goertzel power scan in 5 Hz steps) over
    /// up to `window` samples starting at `start`.
    public static func dominantFrequency(_ samples: [Float], sampleRate: Int, start: Int = 0, window: Int = 8192,
                                         maximum: Double = 5000) -> Double {
        let slice = Array(samples[min(start, samples.count)..<min(start + window, samples.count)])
        var best = (frequency: 0.0, power: -1.0)
        var frequency = 20.0
        while frequency <= maximum {
            let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
            var (s1, s2) = (0.0, 0.0)
            for x in slice {
                let s0 = Double(x) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
            let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
            if power > best.power { best = (frequency, power) }
            frequency += 5
        }
        return best.frequency
    }

    /// The best normalized cross-correlation of `a` against `b` shifted by a lag in `lags`, over
    /// `length` samples from `start` in `a` (1 = identical shape, 0 = unrelated).
    public static func normalizedCrossCorrelation(_ a: [Float], _ b: [Float], start: Int, length: Int,
                                                  lags: ClosedRange<Int>) -> Double {
        var best = -1.0
        for lag in lags {
            var (sab, saa, sbb) = (0.0, 0.0, 0.0)
            for i in start..<(start + length) {
                let j = i + lag
                guard i >= 0, i < a.count, j >= 0, j < b.count else { continue }
                let (x, y) = (Double(a[i]), Double(b[j]))
                sab += x * y
                saa += x * x
                sbb += y * y
            }
            if saa > 0, sbb > 0 { best = max(best, sab / (saa * sbb).squareRoot()) }
        }
        return best
    }
}
