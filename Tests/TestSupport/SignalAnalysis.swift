import Foundation

/// Small, dependency-free signal checks for tests: read raw PCM, find a channel's dominant frequency.
public enum SignalAnalysis {
    /// Interleaved little-endian s16 → one array of floats per channel.
    public static func deinterleaveS16(_ bytes: [UInt8], channels: Int) -> [[Float]] {
        let frames = bytes.count / (2 * channels)
        var out = Array(repeating: [Float](repeating: 0, count: frames), count: channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let i = (frame * channels + channel) * 2
                out[channel][frame] = Float(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) / 32768
            }
        }
        return out
    }

    /// The frequency (Hz) of the strongest spectral peak of `samples` (Hann window, radix-2 FFT over
    /// the longest power-of-two stretch, at most 32768 samples, from `start` — by default centred).
    public static func dominantFrequency(_ samples: [Float], sampleRate: Int, start: Int? = nil) -> Double {
        let available = samples.count - min(start ?? 0, samples.count)
        var n = 1
        while n * 2 <= min(available, 32768) { n *= 2 }
        guard n >= 64 else { return 0 }
        let start = start ?? (samples.count - n) / 2
        var re = (0..<n).map { Double(samples[start + $0]) * (0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(n - 1))) }
        var im = [Double](repeating: 0, count: n)
        fft(&re, &im)
        var best = 1
        var bestPower = 0.0
        for k in 1..<(n / 2) {
            let power = re[k] * re[k] + im[k] * im[k]
            if power > bestPower { bestPower = power; best = k }
        }
        return Double(best) * Double(sampleRate) / Double(n)
    }

    /// Index of the first and last sample whose magnitude exceeds `threshold`, nil if none does.
    public static func audibleRange(_ samples: [Float], threshold: Float = 0.02) -> ClosedRange<Int>? {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
              let last = samples.lastIndex(where: { abs($0) > threshold }) else { return nil }
        return first...last
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

    /// The lag in `lags` at which `b` best matches `a` (`a[i]` against `b[i + lag]`) over `length`
    /// samples from `start`.
    public static func bestLag(_ a: [Float], _ b: [Float], start: Int, length: Int, lags: ClosedRange<Int>) -> Int {
        lags.max { normalizedCrossCorrelation(a, b, start: start, length: length, lags: $0...$0)
                 < normalizedCrossCorrelation(a, b, start: start, length: length, lags: $1...$1) }!
    }

    /// Root-mean-square level of `samples`.
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return sqrt(samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count))
    }

    /// In-place iterative radix-2 FFT.
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let (wr, wi) = (cos(angle * Double(k)), sin(angle * Double(k)))
                    let (a, b) = (start + k, start + k + length / 2)
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length <<= 1
        }
    }
}
