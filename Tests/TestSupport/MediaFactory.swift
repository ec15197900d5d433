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

    /// Copies `input` (stream copy) to `output` with a display matrix that turns its pictures by
    /// `degrees`, as a phone's portrait clip has. FFmpeg 5.1 sets it from the `rotate` tag; FFmpeg 7
    /// ignores that tag and takes `-display_rotation`, which gives the same matrix.
    public static func rotated(_ input: String, degrees: Int, to output: String, extraArguments: [String] = []) throws {
        if takesDisplayRotation {
            try ffmpeg(["-v", "error", "-display_rotation", "\(degrees)", "-i", input, "-c", "copy"] + extraArguments + [output])
        } else {
            try ffmpeg(["-v", "error", "-i", input, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)"] + extraArguments + [output])
        }
    }

    /// Whether this system's ffmpeg has `-display_rotation` (FFmpeg 6 on).
    static let takesDisplayRotation: Bool = {
        (try? Subprocess.run("ffmpeg", ["-hide_banner", "-h", "long"]))?.stdoutText.contains("-display_rotation") ?? false
    }()

    /// Runs the ffmpeg CLI and throws with its stderr on failure.
    public static func ffmpeg(_ arguments: [String]) throws {
        let result = try Subprocess.run("ffmpeg", arguments)
        guard result.status == 0 else {
            throw TestFailure("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.stderrText)")
        }
    }
}
