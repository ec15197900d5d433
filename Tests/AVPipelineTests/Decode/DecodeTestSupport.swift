import Foundation
import TestSupport
import AVPipeline

/// Decodes the audio track of `path` with our stages and returns interleaved PCM bytes in `request`.
func decodeToBytes(_ path: String, _ request: AudioFormatRequest = .init(sampleFormat: .s16)) async throws
    -> (bytes: [UInt8], format: AudioFormat, statistics: AudioDecoderStatistics) {
    let decoder = try Demuxer(path: path).audioTrack().decodeAudio()
    let pcm = try decoder.resampled(to: request)
    var bytes: [UInt8] = []
    for try await buffer in pcm {
        buffer.withUnsafePlane(0) { bytes.append(contentsOf: $0) }
    }
    return (bytes, pcm.outputFormat, decoder.statistics)
}

/// What the ffmpeg CLI decodes from the first audio track of `path`, as s16le, ended where an
/// MP4's edit list ends it (`Probe.presentedAudioSamples`; ffmpeg 5.1 leaves that to its user).
func ffmpegS16(_ path: String) throws -> [UInt8] {
    let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-"])
    guard result.status == 0 else { throw TestFailure("ffmpeg could not decode \(path): \(result.stderrText)") }
    let bytes = [UInt8](result.stdout)
    guard let samples = try Probe.presentedAudioSamples(path), let probe = try? Probe.run(path),
          let channels = probe.streams.first(where: { $0["codec_type"] as? String == "audio" })?["channels"] as? Int
    else { return bytes }
    return Array(bytes.prefix(samples * channels * 2))
}

/// An AAC file made by the ffmpeg CLI from sine tones (one frequency per channel).
func makeAAC(_ path: String, seconds: Double = 1, sampleRate: Int, channels: Int, container: String? = nil) throws {
    var arguments = ["-v", "error", "-y"]
    let frequencies = [440, 1000, 660, 880, 1320, 550]
    for channel in 0..<channels {
        arguments += ["-f", "lavfi", "-i", "sine=frequency=\(frequencies[channel % 6]):sample_rate=\(sampleRate):duration=\(seconds)"]
    }
    if channels > 1 {
        arguments += ["-filter_complex", (0..<channels).map { "[\($0):a]" }.joined() + "amerge=inputs=\(channels)[a]", "-map", "[a]"]
    }
    arguments += ["-c:a", "aac", "-b:a", "\(48_000 * channels)"]
    if let container { arguments += ["-f", container] }
    try MediaFactory.ffmpeg(arguments + [path])
}
