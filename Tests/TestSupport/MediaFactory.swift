import Foundation

/// Generates test media with the ffmpeg CLI (an independent producer: our code never makes its own
/// inputs).
public enum MediaFactory {
    /// A WAV of sine tones, one frequency per channel (cycled), in any PCM codec ffmpeg writes
    /// (`pcm_u8`, `pcm_s16le`, `pcm_s24le`, `pcm_s32le`, `pcm_f32le`, `pcm_f64le`).
    @discardableResult
    public static func tone(_ path: String, seconds: Double = 2, sampleRate: Int = 44_100, channels: Int = 2,
                            codec: String = "pcm_s16le", frequencies: [Int] = [440, 1000, 660, 880, 1320, 550, 770, 990],
                            extraArguments: [String] = []) throws -> String {
        var arguments = ["-v", "error", "-y"]
        for channel in 0..<channels {
            arguments += ["-f", "lavfi", "-i", "sine=frequency=\(frequencies[channel % frequencies.count]):sample_rate=\(sampleRate):duration=\(seconds)"]
        }
        if channels > 1 {
            let inputs = (0..<channels).map { "[\($0):a]" }.joined()
            arguments += ["-filter_complex", "\(inputs)amerge=inputs=\(channels)[a]", "-map", "[a]"]
        }
        arguments += ["-c:a", codec] + extraArguments + [path]
        try ffmpeg(arguments)
        return path
    }

    /// Runs the ffmpeg CLI and throws with its stderr on failure.
    public static func ffmpeg(_ arguments: [String]) throws {
        let result = try Subprocess.run("ffmpeg", arguments)
        guard result.status == 0 else {
            throw TestFailure("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.stderrText)")
        }
    }
}
