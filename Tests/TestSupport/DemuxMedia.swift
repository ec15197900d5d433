import Foundation

/// Audio/video inputs for the demux tests, made with the ffmpeg CLI.
public enum DemuxMedia {
    /// An MP4 (or any container ffmpeg infers from the extension) with a test-pattern video track
    /// (H.264 by default) and a sine audio track (AAC), `seconds` long.
    @discardableResult
    public static func movie(_ path: String, seconds: Double = 2, size: String = "320x240", rate: Int = 25,
                             videoCodec: String = "libx264", videoArguments: [String] = [],
                             audio: Bool = true, video: Bool = true, audioTracks: Int = 1,
                             extraArguments: [String] = []) throws -> String {
        var arguments = ["-v", "error", "-y"]
        if video {
            arguments += ["-f", "lavfi", "-i", "testsrc=size=\(size):rate=\(rate):duration=\(seconds)"]
        }
        let frequencies = [440, 660, 880, 1000]
        for track in 0..<(audio ? audioTracks : 0) {
            arguments += ["-f", "lavfi", "-i", "sine=frequency=\(frequencies[track % 4]):duration=\(seconds)"]
        }
        let inputs = (video ? 1 : 0) + (audio ? audioTracks : 0)
        for input in 0..<inputs { arguments += ["-map", "\(input)"] }
        if video { arguments += ["-c:v", videoCodec, "-pix_fmt", "yuv420p"] + videoArguments }
        if audio { arguments += ["-c:a", "aac", "-b:a", "64k"] }
        arguments += extraArguments + [path]
        try MediaFactory.ffmpeg(arguments)
        return path
    }
}
